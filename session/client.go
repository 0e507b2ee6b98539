package session

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// ErrAPI is returned for a request the API answered with an error.
var ErrAPI = errors.New("strand HTTP API")

// Client talks to the HTTP API of one `strand run` process.
type Client struct {
	// Addr is host:port, or a URL.
	Addr string
	HTTP *http.Client
}

func (c *Client) url(path string) string {
	base := c.Addr
	if !strings.Contains(base, "://") {
		base = "http://" + base
	}
	return strings.TrimSuffix(base, "/") + path
}

// do sends a request with body in (nil for none) and decodes the answer
// into out; an error answer becomes an error carrying its messages.
func (c *Client) do(ctx context.Context, method, path string, in, out any) error {
	var body io.Reader
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			return err
		}
		body = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.url(path), body)
	if err != nil {
		return err
	}
	if in != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	hc := c.HTTP
	if hc == nil {
		hc = http.DefaultClient
	}
	resp, err := hc.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 16<<20))
	if err != nil {
		return fmt.Errorf("%s %s: %w", method, c.url(path), err)
	}
	if resp.StatusCode >= 300 {
		var e struct {
			Errors []string `json:"errors"`
		}
		if json.Unmarshal(b, &e) != nil || len(e.Errors) == 0 {
			return fmt.Errorf("%w: %s %s: %s", ErrAPI, method, c.url(path), resp.Status)
		}
		return fmt.Errorf("%w: %s", ErrAPI, strings.Join(e.Errors, "; "))
	}
	if err := json.Unmarshal(b, out); err != nil {
		return fmt.Errorf("%s %s: %w", method, c.url(path), err)
	}
	return nil
}

// Jobs lists the jobs of the process's session.
func (c *Client) Jobs(ctx context.Context) ([]JobOverview, error) {
	var out struct {
		Jobs []JobOverview `json:"jobs"`
	}
	err := c.do(ctx, http.MethodGet, "/jobs", nil, &out)
	return out.Jobs, err
}

// Job returns job id's details; id may be a unique prefix.
func (c *Client) Job(ctx context.Context, id string) (*JobDetail, error) {
	var out JobDetail
	if err := c.do(ctx, http.MethodGet, "/jobs/"+url.PathEscape(id), nil, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// Savepoint asks for a savepoint of job id into dir (the job's default
// if empty) and waits for its path; the job keeps running.
func (c *Client) Savepoint(ctx context.Context, id, dir string) (string, error) {
	in := struct {
		Dir    string `json:"target-directory,omitempty"`
		Cancel bool   `json:"cancel-job"`
	}{Dir: dir}
	return c.await(ctx, id, "/savepoints", in)
}

// Stop stops job id with a savepoint into dir (the job's default if
// empty), draining first if drain, and returns the savepoint's path once
// the job has ended.
func (c *Client) Stop(ctx context.Context, id, dir string, drain bool) (string, error) {
	in := struct {
		Dir   string `json:"targetDirectory,omitempty"`
		Drain bool   `json:"drain"`
	}{dir, drain}
	return c.await(ctx, id, "/stop", in)
}

// await posts a savepoint or stop request and polls its status until it
// has completed.
func (c *Client) await(ctx context.Context, id, what string, in any) (string, error) {
	job := "/jobs/" + url.PathEscape(id)
	var trig struct {
		ID string `json:"request-id"`
	}
	if err := c.do(ctx, http.MethodPost, job+what, in, &trig); err != nil {
		return "", err
	}
	for {
		var st OperationStatus
		if err := c.do(ctx, http.MethodGet, job+"/savepoints/"+url.PathEscape(trig.ID), nil, &st); err != nil {
			return "", err
		}
		if st.Status.ID == "COMPLETED" && st.Operation != nil {
			if f := st.Operation.Failure; f != nil {
				return "", fmt.Errorf("%w: %s", ErrAPI, f.Message)
			}
			return st.Operation.Location, nil
		}
		select {
		case <-time.After(50 * time.Millisecond):
		case <-ctx.Done():
			return "", ctx.Err()
		}
	}
}
