// Package rank holds strand's ranking operators: the window Top-N
// (WindowTopN), which sorts each window's rows when the window fires and
// keeps the first of each partition.
package rank
