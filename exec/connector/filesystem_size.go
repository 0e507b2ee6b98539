package connector

import (
	"fmt"
	"os"

	"github.com/strandsql/strand/exec"
)

// Size is the length of the split's bytes as it is opened, the whole file
// or its range, for the bytes-read progress of exec.Metrics; a file still
// being written may grow past it. A pipe or other non-regular file has no
// size (-1).
func (s *fileSource) Size(split exec.Split) (int64, error) {
	fi, err := os.Stat(splitPath(split))
	if err != nil {
		return 0, fmt.Errorf("filesystem source: %w", err)
	}
	if !fi.Mode().IsRegular() {
		return -1, nil
	}
	if split.End > 0 {
		return split.End - split.Start, nil
	}
	return max(fi.Size()-split.Start, 0), nil
}
