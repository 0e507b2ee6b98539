package checkpoint

import (
	"context"
	"errors"
	"net/url"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"
)

// blobStores opens a bucket of each driver the default build has: memory
// (mem://) and a directory (file://), each under a prefix.
func blobStores(t *testing.T) map[string]func() (vfs.FS, string) {
	return map[string]func() (vfs.FS, string){
		"mem": func() (vfs.FS, string) {
			fs, root, err := OpenURL(context.Background(), "mem://bucket/jobs")
			if err != nil {
				t.Fatal(err)
			}
			return fs, root
		},
		"file": func() (vfs.FS, string) {
			u := url.URL{Scheme: "file", Path: filepath.ToSlash(t.TempDir())}
			fs, root, err := OpenURL(context.Background(), u.String())
			if err != nil {
				t.Fatal(err)
			}
			return fs, root + "jobs"
		},
	}
}

// TestBlobCorruption is TestCorruption on object storage: every damaged,
// truncated or missing object of a checkpoint is refused with its name,
// and recovery falls back to the checkpoint before.
func TestBlobCorruption(t *testing.T) {
	for name, open := range blobStores(t) {
		t.Run(name, func(t *testing.T) {
			fs, root := open()
			corruption(t, fs, fs.PathJoin(root, "ck"))
		})
	}
}

// TestBlobStorage writes checkpoints to object storage: a checkpoint
// without _metadata is incomplete, never used; NextID is above every
// checkpoint; Retain deletes the old checkpoints and the shared objects
// only they used; the lineage record is kept.
func TestBlobStorage(t *testing.T) {
	for name, open := range blobStores(t) {
		t.Run(name, func(t *testing.T) {
			fs, root := open()
			local := vfs.NewMem()
			st := openStorage(t, fs, fs.PathJoin(root, "ck"))
			subs := []*subtask{openSubtask(t, local, "/w/0", 0, 127)}
			var snaps [][]data
			for id := int64(1); id <= 3; id++ {
				change(t, subs[0], 20, uint64(id))
				md, sn := checkpoint(t, st, id, subs)
				snaps = append(snaps, sn)
				if id < 3 {
					write(t, st, md)
				}
			}
			// Checkpoint 3 uploaded its files but has no _metadata.
			md, err := st.Latest(func(n int64, err error) {
				if n != 3 || !errors.Is(err, ErrIncomplete) {
					t.Errorf("Latest reported %d: %v; want 3 incomplete", n, err)
				}
			})
			if err != nil || md == nil || md.ID != 2 {
				t.Fatalf("Latest = %v, %v; want checkpoint 2", md, err)
			}
			sameData(t, "restore of 2", restored(t, local, st, md, 0, 127), snaps[1][0])
			if n, err := st.NextID(); err != nil || n != 4 {
				t.Fatalf("NextID = %d, %v; want 4", n, err)
			}
			if err := st.SetLineage("job-a"); err != nil {
				t.Fatal(err)
			}
			if err := st.Retain(1); err != nil {
				t.Fatal(err)
			}
			names, err := fs.List(st.root)
			if err != nil {
				t.Fatal(err)
			}
			slices.Sort(names)
			// chk-3, newer than the newest complete checkpoint, may
			// still complete: Retain keeps it.
			if want := []string{"chk-2", "chk-3", "lineage", "shared"}; !slices.Equal(names, want) {
				t.Fatalf("after Retain(1): %v, want %v", names, want)
			}
			shared, err := fs.List(st.path(sharedDir))
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range shared {
				if !refsOf(md)[sharedDir+"/"+f] && st.claimed[sharedDir+"/"+f] != 3 {
					t.Errorf("shared object %s is no retained checkpoint's", f)
				}
			}
			if l, err := st.Lineage(); err != nil || l != "job-a" {
				t.Fatalf("Lineage = %q, %v", l, err)
			}
			// A second Storage on the same bucket, as a member restarted
			// on another machine opens it, recovers the same checkpoint.
			again := openStorage(t, fs, st.root)
			md2, err := again.Latest(nil)
			if err != nil || md2 == nil || md2.ID != 2 {
				t.Fatalf("reopened: Latest = %v, %v; want 2", md2, err)
			}
		})
	}
}

func TestIsURL(t *testing.T) {
	for dir, want := range map[string]bool{"s3://b/p": true, "file:///tmp/x": true, "mem://": true, "/tmp/x": false, ".strand": false, `C:\x`: false} {
		if got := IsURL(dir); got != want {
			t.Errorf("IsURL(%q) = %v", dir, got)
		}
	}
	if _, _, err := OpenURL(context.Background(), "nosuch://bucket"); err == nil || !strings.Contains(err.Error(), "-tags cloud") {
		t.Errorf("unknown scheme: %v", err)
	}
}
