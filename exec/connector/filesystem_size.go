package connector

import (
	"fmt"
	"os"

	"github.com/strandsql/strand/exec"
)

// Size is the length of the file, or of its range, as its split is
// opened, for the bytes-read progress of exec.Metrics; a file still being
// written may grow past it. A pipe or other non-regular file has no size
// (-1).
func (s *fileSource) Size(split exec.Split) (int64, error) {
	fi, err := os.Stat(splitPath(split))
	if err != nil {
		return 0, fmt.Errorf("filesystem source: %w", err)
	}
	if !fi.Mode().IsRegular() {
		return -1, nil
	}
	end := fi.Size()
	if split.End > 0 {
		end = min(end, split.End)
	}
	return max(end-split.Start, 0), nil
}
