package djvu

import (
	"errors"
	"fmt"
)

const (
	// maxBZZBlock is the largest block a BZZ stream may declare: the
	// specification's 4 MB.
	maxBZZBlock = 4 << 20
	// maxOverrun is how far past its end a stream may be read: the
	// encoder's last bytes are implied, never more than a few.
	maxOverrun = 32
)

var errBZZ = errors.New("corrupt BZZ data")

// unbzz decodes a BZZ stream (DjVu v3 specification, appendix 4): blocks
// of Burrows-Wheeler transformed bytes, their move-to-front ranks coded
// with the Z'-coder, until a block of size zero. It fails once the output
// would pass max bytes.
func unbzz(data []byte, max int) ([]byte, error) {
	// Text compresses a few times over; a tiny stream that declares
	// megabytes is corrupt, and would cost seconds to decode.
	max = min(max, 1<<16+64*len(data))
	z := newZPDecoder(data)
	var ctx [262]uint8
	var out []byte
	for {
		size := 0
		for range 24 {
			size = size<<1 | z.passthrough()
		}
		if size == 0 {
			return out, nil
		}
		if size > maxBZZBlock || z.overrun > maxOverrun {
			return nil, fmt.Errorf("%w: block of %d bytes", errBZZ, size)
		}
		if len(out)+size-1 > max {
			return nil, fmt.Errorf("%w: more than %d bytes", errBZZ, max)
		}
		block, err := bzzBlock(z, &ctx, size)
		if err != nil {
			return nil, err
		}
		out = append(out, block...)
	}
}

// bzzBlock decodes one block of size symbols, the end-of-block marker
// among them, into its size-1 bytes.
func bzzBlock(z *zpDecoder, ctx *[262]uint8, size int) ([]byte, error) {
	// How fast the symbol frequencies are forgotten.
	fshift := 0
	if z.passthrough() == 1 {
		fshift = 1
		if z.passthrough() == 1 {
			fshift = 2
		}
	}
	var mtf [256]byte
	for i := range mtf {
		mtf[i] = byte(i)
	}
	var freq [4]uint32
	fadd := uint32(4)
	bin := func(offset, bits int) int {
		n := 1
		for n < 1<<bits {
			n = n<<1 | z.decode(&ctx[offset+n-1])
		}
		return n - 1<<bits
	}
	data := make([]byte, size)
	marker := -1
	rank := 3
	for i := range data {
		if z.overrun > maxOverrun {
			return nil, fmt.Errorf("%w: truncated", errBZZ)
		}
		c := 2
		if rank <= 1 {
			c = rank
		}
		switch {
		case z.decode(&ctx[c]) == 1:
			rank = 0
		case z.decode(&ctx[c+3]) == 1:
			rank = 1
		case z.decode(&ctx[6]) == 1:
			rank = 2 + bin(7, 1)
		case z.decode(&ctx[8]) == 1:
			rank = 4 + bin(9, 2)
		case z.decode(&ctx[12]) == 1:
			rank = 8 + bin(13, 3)
		case z.decode(&ctx[20]) == 1:
			rank = 16 + bin(21, 4)
		case z.decode(&ctx[36]) == 1:
			rank = 32 + bin(37, 5)
		case z.decode(&ctx[68]) == 1:
			rank = 64 + bin(69, 6)
		case z.decode(&ctx[132]) == 1:
			rank = 128 + bin(133, 7)
		default:
			// The end-of-block marker, once per block.
			if marker >= 0 {
				return nil, fmt.Errorf("%w: two block ends", errBZZ)
			}
			rank = 256
			marker = i
			continue
		}
		sym := mtf[rank]
		data[i] = sym
		// Move the symbol towards the front as far as its estimated
		// frequency says, keeping freq sorted.
		fadd += fadd >> fshift
		if fadd > 0x10000000 {
			fadd >>= 24
			for j := range freq {
				freq[j] >>= 24
			}
		}
		fc := fadd
		if rank < 4 {
			fc += freq[rank]
		}
		k := rank
		for ; k >= 4; k-- {
			mtf[k] = mtf[k-1]
		}
		for ; k > 0 && fc >= freq[k-1]; k-- {
			mtf[k] = mtf[k-1]
			freq[k] = freq[k-1]
		}
		mtf[k] = sym
		freq[k] = fc
	}
	if marker <= 0 || marker >= size {
		return nil, fmt.Errorf("%w: no block end", errBZZ)
	}
	return unBWT(data, marker), nil
}

// unBWT inverts the Burrows-Wheeler transform of data, whose end-of-block
// marker is at marker, into the size-1 bytes it came from.
func unBWT(data []byte, marker int) []byte {
	size := len(data)
	rankOf := make([]uint32, size)
	var count [256]int
	for i, c := range data {
		if i == marker {
			continue
		}
		rankOf[i] = uint32(count[c])
		count[c]++
	}
	// Where each symbol's run starts once sorted, the marker first.
	var start [256]int
	next := 1
	for c := range count {
		start[c] = next
		next += count[c]
	}
	out := make([]byte, size-1)
	k := 0
	for last := size - 1; last > 0; {
		last--
		c := data[k]
		out[last] = c
		k = start[c] + int(rankOf[k])
		if k >= size {
			break
		}
	}
	return out
}
