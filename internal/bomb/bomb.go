// Package bomb writes hostile files for tests and benchmarks: PDFs whose
// streams inflate to hundreds of megabytes from a few hundred kilobytes,
// and EPUBs that are zip bombs. Nothing is ever held inflated: a stream is
// one compressed chunk repeated.
package bomb

import (
	"bytes"
	"compress/flate"
	"encoding/binary"
	"hash/adler32"
	"io"
	"strings"
)

// Fillers for a bomb's inflated content.
const (
	// Spaces cost a content parser nothing but the decoded buffer.
	Spaces = " "
	// Moves each add a point to a path that is never painted, which a
	// content parser keeps until the end of the stream.
	Moves = "0 0 m "
)

// chunkSize is how much filler one compressed chunk holds.
const chunkSize = 1 << 20

// Zlib returns a zlib stream (a PDF FlateDecode stream) that inflates to
// prefix followed by unit repeated size/len(unit) times.
func Zlib(prefix, unit string, size int64) []byte {
	sum := adler32.New()
	out := []byte{0x78, 0xDA}
	out = append(out, deflated(prefix, unit, size, sum)...)
	return binary.BigEndian.AppendUint32(out, sum.Sum32())
}

// deflated returns a raw deflate stream of prefix followed by unit
// repeated size/len(unit) times, and writes the inflated bytes to sum. It
// is one deflated chunk repeated: each chunk ends on a byte boundary (a
// sync flush) and its back-references stay inside it, so copies can
// follow one another.
func deflated(prefix, unit string, size int64, sum io.Writer) []byte {
	return deflatedWith(prefix, unit, "", size, sum)
}

// deflatedWith is deflated with suffix after the repeated unit.
func deflatedWith(prefix, unit, suffix string, size int64, sum io.Writer) []byte {
	if unit == "" {
		unit = Spaces
	}
	units := size / int64(len(unit))
	per := max(1, int64(chunkSize/len(unit)))
	chunk := strings.Repeat(unit, int(min(per, units)))
	full, rest := int64(0), int64(0)
	if len(chunk) > 0 {
		full, rest = units/per, units%per
	}
	var out []byte
	if prefix != "" {
		out = append(out, deflateChunk([]byte(prefix))...)
		sum.Write([]byte(prefix))
	}
	if full > 0 {
		c := deflateChunk([]byte(chunk))
		for range full {
			out = append(out, c...)
			sum.Write([]byte(chunk))
		}
	}
	if rest > 0 {
		tail := []byte(chunk[:rest*int64(len(unit))])
		out = append(out, deflateChunk(tail)...)
		sum.Write(tail)
	}
	if suffix != "" {
		out = append(out, deflateChunk([]byte(suffix))...)
		sum.Write([]byte(suffix))
	}
	return append(out, finalBlock()...)
}

// deflateChunk compresses data into non-final blocks ending on a byte
// boundary.
func deflateChunk(data []byte) []byte {
	var b bytes.Buffer
	w, _ := flate.NewWriter(&b, flate.BestCompression)
	w.Write(data)
	w.Flush()
	return b.Bytes()
}

// finalBlock is an empty final deflate block.
func finalBlock() []byte {
	var b bytes.Buffer
	w, _ := flate.NewWriter(&b, flate.BestCompression)
	w.Flush()
	mark := b.Len()
	w.Close()
	return b.Bytes()[mark:]
}
