//go:build cloud

package main

// A build with -tags cloud registers the object stores whose SDKs are too
// large for the default binary: s3:// (AWS S3 and compatible stores) and
// gs:// (Google Cloud Storage), for state.checkpoints.dir.
import (
	_ "gocloud.dev/blob/gcsblob"
	_ "gocloud.dev/blob/s3blob"
)
