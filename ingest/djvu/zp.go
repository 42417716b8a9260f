package djvu

// zpState is one row of the Z'-coder's state table.
type zpState struct {
	p, m   uint16
	up, dn uint8
}

// zpDecoder is the Z'-coder's decoder (DjVu v3 specification, appendix 3):
// an adaptive binary arithmetic decoder over a byte string. Past the end
// of its input it reads ones, as the specification requires, so a short
// or corrupt stream decodes to something rather than failing; the callers
// bound what they decode.
type zpDecoder struct {
	data []byte
	pos  int // next byte of data to read
	bits uint32
	nbit uint   // bits left in bits
	a    uint32 // interval, 16 bits
	c    uint32 // code, 16 bits
	// overrun counts the bytes read past the end of data, so that callers
	// can stop a stream that has run dry.
	overrun int
}

func newZPDecoder(data []byte) *zpDecoder {
	z := &zpDecoder{data: data}
	z.c = uint32(z.byte())<<8 | uint32(z.byte())
	return z
}

func (z *zpDecoder) byte() byte {
	if z.pos < len(z.data) {
		b := z.data[z.pos]
		z.pos++
		return b
	}
	z.overrun++
	return 0xff
}

// bit returns the next bit of the input, most significant first.
func (z *zpDecoder) bit() uint32 {
	if z.nbit == 0 {
		z.bits = uint32(z.byte())
		z.nbit = 8
	}
	z.nbit--
	return (z.bits >> z.nbit) & 1
}

// shift renormalizes: a and c move left by n bits, c taking input bits.
func (z *zpDecoder) shift(n int) {
	for range n {
		z.a = (z.a << 1) & 0xffff
		z.c = ((z.c << 1) | z.bit()) & 0xffff
	}
}

// leadingOnes counts the ones at the top of a 16-bit value.
func leadingOnes(v uint32) int {
	n := 0
	for v&0x8000 != 0 {
		n++
		v = (v << 1) & 0xffff
	}
	return n
}

// decode returns the next bit coded with the adaptive context *ctx,
// updating the context's state.
func (z *zpDecoder) decode(ctx *uint8) int {
	st := zpTable[*ctx]
	mps := int(*ctx & 1)
	q := z.a + uint32(st.p)
	// Keep the interval from reversing.
	if d := 0x6000 + ((q + z.a) >> 2); q > d {
		q = d
	}
	if q > z.c {
		// Less probable symbol.
		q = 0x10000 - q
		z.a += q
		z.c += q
		*ctx = st.dn
		z.shift(leadingOnes(z.a))
		return mps ^ 1
	}
	// The more probable symbol: the state moves on only when the
	// interval needs renormalizing, as the encoder did.
	if q < 0x8000 {
		z.a = q
		return mps
	}
	if z.a >= uint32(st.m) {
		*ctx = st.up
	}
	z.a = (q << 1) & 0xffff
	z.c = ((z.c << 1) | z.bit()) & 0xffff
	return mps
}

// passthrough returns the next bit coded without a context, at even odds.
func (z *zpDecoder) passthrough() int {
	q := 0x8000 + (z.a >> 1)
	if q > z.c {
		q = 0x10000 - q
		z.a += q
		z.c += q
		z.shift(leadingOnes(z.a))
		return 1
	}
	z.a = (q << 1) & 0xffff
	z.c = ((z.c << 1) | z.bit()) & 0xffff
	return 0
}
