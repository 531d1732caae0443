package main

import (
	"os"
	"path/filepath"
	"testing"
)

// testdataDir is the absolute path of the package's testdata, for tests that change into a
// temporary directory and still compare golden files.
var testdataDir string

func TestMain(m *testing.M) {
	wd, err := os.Getwd()
	if err != nil {
		panic(err)
	}
	testdataDir = filepath.Join(wd, "testdata")
	os.Exit(m.Run())
}
