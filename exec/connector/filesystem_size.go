package connector

import (
	"fmt"
	"os"

	"github.com/strandsql/strand/exec"
)

// Size is the file's length as its split is opened, for the bytes-read
// progress of exec.Metrics; a file still being written may grow past it.
// A pipe or other non-regular file has no size (-1).
func (s *fileSource) Size(split exec.Split) (int64, error) {
	fi, err := os.Stat(split.ID)
	if err != nil {
		return 0, fmt.Errorf("filesystem source: %w", err)
	}
	if !fi.Mode().IsRegular() {
		return -1, nil
	}
	return fi.Size(), nil
}
