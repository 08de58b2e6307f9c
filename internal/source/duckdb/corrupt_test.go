package duckdb

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// copyFile copies the file at src to dst.
func copyFile(t *testing.T, src, dst string) {
	t.Helper()
	in, err := os.Open(src)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.Create(dst)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}

// corruptCopy is a copy of the warehouse at src with one 256 KiB block
// (DuckDB's block size) at offset overwritten.
func corruptCopy(t *testing.T, src string, offset int64) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "corrupt.duckdb")
	copyFile(t, src, path)
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	junk := make([]byte, 256<<10)
	for i := range junk {
		junk[i] = byte(i*7 + 13)
	}
	if _, err := f.WriteAt(junk, offset); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestCorruptWarehouseIsNotReady: a block of the warehouse
// file overwritten, block by block. Where the file still opens (its catalog
// is intact), the first query that reads the broken block fails, and from
// then on Check (what /readyz asks) says the file is corrupted instead of
// looking ready; where it does not open, the error says it is corrupted.
func TestCorruptWarehouseIsNotReady(t *testing.T) {
	ctx := context.Background()
	src := openTestSource(t)
	fi, err := os.Stat(src.Path())
	if err != nil {
		t.Fatal(err)
	}
	queries := []string{
		`{"platforms":["meta_ads"],"metrics":["spend","impressions","clicks"],"dimensions":["ad_id","device","publisher_platform"],"date_preset":"last_90d"}`,
		`{"platforms":["google_ads"],"metrics":["spend","impressions","clicks"],"dimensions":["ad_id","device","publisher_platform"],"date_preset":"last_90d"}`,
		`{"platforms":["tiktok_ads"],"metrics":["spend","impressions","clicks"],"dimensions":["ad_id","device","publisher_platform"],"date_preset":"last_90d"}`,
	}
	found := 0
	const block = 256 << 10
	for offset := int64(block); offset+block <= fi.Size() && found < 2; offset += block {
		s, err := Open(ctx, corruptCopy(t, src.Path(), offset), Options{NoDemoFill: true})
		if err != nil {
			if !isCorruption(err) {
				t.Errorf("block at %d: the open failed without saying the file is corrupted: %v", offset, err)
			}
			continue
		}
		var failed error
		for _, raw := range queries {
			if _, err := s.Query(ctx, normalize(t, src, raw)); err != nil {
				failed = err
				break
			}
		}
		if failed != nil && isCorruption(failed) {
			found++
			if err := s.Check(ctx); !errors.Is(err, ErrCorrupt) {
				t.Errorf("block at %d: Check after a corrupted read: %v, want ErrCorrupt", offset, err)
			}
		} else if err := s.Check(ctx); errors.Is(err, ErrCorrupt) {
			t.Errorf("block at %d: Check says corrupted though no read found it", offset)
		}
		s.Close()
	}
	if found == 0 {
		t.Fatalf("no overwritten block of %d left the file open and a query failing: the test proves nothing", fi.Size()/block)
	}
}
