package connector

import (
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
)

// A filesystem table's path is a local path, absolute or relative to the
// working directory, or a file:// URI naming a local path (file:///x,
// file://localhost/x and Hadoop's file:/x). Other schemes are refused when
// the table is declared, rather than taken for a directory named "s3:".

// scheme matches a URI's scheme: letters, digits, + - . after a letter,
// then ':'. A one-letter scheme would be a Windows drive, and is not one.
var scheme = regexp.MustCompile(`^([A-Za-z][A-Za-z0-9+.-]+):`)

// localPath returns the local path that the option value v names.
func localPath(v string) (string, error) {
	m := scheme.FindStringSubmatch(v)
	if m == nil {
		return v, nil
	}
	if m[1] != "file" {
		return "", &OptionError{Key: "path", AtValue: true, Msg: fmt.Sprintf(
			"unsupported file system scheme '%s' in path '%s': strand reads and writes local files only, given as a path or a file:// URI", m[1], v)}
	}
	u, err := url.Parse(v)
	if err != nil {
		return "", badPath(v, err.Error())
	}
	if u.Host != "" && u.Host != "localhost" {
		return "", badPath(v, fmt.Sprintf("names host '%s'; a file URI is file:///absolute/path", u.Host))
	}
	if u.Opaque != "" || !filepath.IsAbs(u.Path) {
		return "", badPath(v, "is not absolute; a file URI is file:///absolute/path")
	}
	if u.RawQuery != "" || u.Fragment != "" {
		return "", badPath(v, "has a query or fragment")
	}
	return filepath.Clean(u.Path), nil
}

func badPath(v, why string) *OptionError {
	return &OptionError{Key: "path", AtValue: true, Msg: fmt.Sprintf("invalid value '%s' for option 'path': the file URI %s", v, why)}
}

// Check looks at the files of table t before a job that reads it
// (asSource) or writes it starts: a source's path must exist, a sink's
// must not be a regular file. Relative paths are relative to the working
// directory. It returns nil for connectors without files.
func Check(t Table, asSource bool) error {
	if t.Options["connector"] != "filesystem" {
		return nil
	}
	c, err := parseFilesystem(t)
	if err != nil {
		return err
	}
	fi, err := os.Stat(c.path)
	where := ""
	if !filepath.IsAbs(c.path) {
		if wd, werr := os.Getwd(); werr == nil {
			where = " (relative to the working directory " + wd + ")"
		}
	}
	switch {
	case asSource && os.IsNotExist(err):
		return &OptionError{Key: "path", AtValue: true, Msg: fmt.Sprintf("table %s: path '%s' does not exist%s", t.Name, c.path, where)}
	case asSource && err != nil:
		return &OptionError{Key: "path", AtValue: true, Msg: fmt.Sprintf("table %s: %v", t.Name, err)}
	case !asSource && err == nil && !fi.IsDir():
		return &OptionError{Key: "path", AtValue: true, Msg: fmt.Sprintf("table %s: path '%s' is a file; a filesystem sink writes into a directory", t.Name, c.path)}
	}
	return nil
}
