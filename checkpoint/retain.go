package checkpoint

import (
	"errors"
	"fmt"
	iofs "io/fs"
)

// Retain keeps the newest keep complete checkpoints and deletes the rest:
// older complete checkpoints, incomplete checkpoint directories older than
// the newest complete one (newer ones may still be being written), and
// every shared file that no retained checkpoint references and no
// checkpoint in flight has claimed (see state.Target). The references are
// read from the retained checkpoints' _metadata each time, so Retain is as
// right after a restart as before it.
//
// "Complete" means a _metadata that reads and passes its checksum; Retain
// does not read the state files, which Load verifies before a restore.
// A checkpoint is deleted _metadata first, so that a crash part-way leaves
// an incomplete directory, never a complete-looking one with files missing.
func (s *Storage) Retain(keep int) error {
	if keep < 1 {
		return fmt.Errorf("checkpoint: retain %d: at least one checkpoint must be kept", keep)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.retain(keep); err != nil {
		return fmt.Errorf("checkpoint: retain in %s: %w", s.root, err)
	}
	return nil
}

func (s *Storage) retain(keep int) error {
	ids, err := s.ids()
	if err != nil {
		return err
	}
	var complete []*Metadata
	for _, n := range ids {
		md, err := s.readMetadata(n)
		if errors.Is(err, ErrCorrupt) {
			continue
		}
		if err != nil {
			// Unreadable is not incomplete: deleting on a guess could
			// delete the one good checkpoint.
			return err
		}
		complete = append(complete, md)
	}
	complete = complete[max(0, len(complete)-keep):]
	refs := map[string]bool{}
	kept := map[int64]bool{}
	for _, md := range complete {
		kept[md.ID] = true
		for _, f := range md.files() {
			if f.Shared {
				refs[f.Path] = true
			}
		}
	}
	var newest int64
	if len(complete) > 0 {
		newest = complete[len(complete)-1].ID
	}
	for _, n := range ids {
		if n < newest && !kept[n] {
			if err := s.removeCheckpoint(n); err != nil {
				return err
			}
		}
	}
	// Claims by checkpoints up to the newest complete one are settled:
	// those checkpoints completed (and their files are in refs if they are
	// retained) or never will, since Write refuses to go back.
	for p, id := range s.claimed {
		if id <= newest {
			delete(s.claimed, p)
		}
	}
	names, err := s.fs.List(s.path(sharedDir))
	if err != nil {
		return err
	}
	for _, name := range names {
		p := sharedDir + "/" + name
		if refs[p] {
			continue
		}
		if _, ok := s.claimed[p]; ok {
			continue
		}
		delete(s.held, p)
		if err := s.fs.Remove(s.path(p)); err != nil {
			return err
		}
	}
	return s.syncDir(s.root)
}

func (s *Storage) removeCheckpoint(n int64) error {
	dir := chkDir(n)
	err := s.fs.Remove(s.path(dir + "/" + metadataName))
	if err == nil {
		err = s.syncDir(s.path(dir))
	} else if errors.Is(err, iofs.ErrNotExist) {
		err = nil
	}
	if err != nil {
		return err
	}
	return s.fs.RemoveAll(s.path(dir))
}
