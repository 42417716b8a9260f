// Package pdfium runs PDFium (compiled to WebAssembly, executed by wazero)
// and exposes the few calls the PDF parser needs: documents, outlines,
// labels, and the characters of a page with their boxes and fonts.
//
// go-pdfium's webassembly backend starts the runtime and instantiates the
// module; the calls themselves go straight to the module's exports. The
// public go-pdfium wrappers allocate and free guest scratch memory around
// every call (nine guest calls for one character box), which makes reading
// a book glyph by glyph through them several times slower.
//
// A call cannot be interrupted (see Start), so an Instance must be driven
// by one goroutine that its owner can stop waiting for.
package pdfium

import (
	"context"
	"errors"
	"fmt"
	"io"
	"reflect"

	gopdfium "github.com/klippa-app/go-pdfium"
	"github.com/klippa-app/go-pdfium/webassembly"
	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/experimental"
)

// Config configures a Runtime.
type Config struct {
	// CacheDir holds wazero's compiled module between processes; empty
	// means compile in memory only.
	CacheDir string
	// MaxInstances bounds the instances alive at once.
	MaxInstances int
	// MemoryLimit caps each instance's linear memory, in bytes; PDFium
	// sees an allocation failure beyond it. Zero means 4 GiB, the most a
	// 32-bit module can address.
	MemoryLimit uint64
	// Stderr receives what PDFium prints; nil discards it.
	Stderr io.Writer
}

// Runtime is a started PDFium: the module compiled once, instantiated per
// Instance.
type Runtime struct {
	pool  gopdfium.Pool
	cache wazero.CompilationCache
}

// Start compiles the PDFium module (or loads it from the cache directory)
// and returns a runtime ready to make instances. A cache directory that
// cannot be used, or whose content cannot be loaded, does not stop it: the
// module is then compiled in memory, and cacheErr says why.
func Start(ctx context.Context, cfg Config) (rt *Runtime, cacheErr error, err error) {
	if cfg.MaxInstances < 1 {
		cfg.MaxInstances = 1
	}
	rc := wazero.NewRuntimeConfig().
		// The bundled module lowers setjmp/longjmp to exception-handling
		// instructions, so that feature must stay on.
		//
		// WithCloseOnContextDone is left off on purpose: the checks it
		// compiles into every function entry and loop made text extraction
		// three to four times slower. Time limits are enforced by the
		// caller, which stops waiting for an instance that overruns.
		WithCoreFeatures(api.CoreFeaturesV2 | experimental.CoreFeaturesExceptionHandling)
	if cfg.MemoryLimit > 0 {
		pages := max(cfg.MemoryLimit/65536, 256)
		if pages < 65536 {
			rc = rc.WithMemoryLimitPages(uint32(pages))
		}
	}
	if cfg.CacheDir != "" {
		cache, err := wazero.NewCompilationCacheWithDir(cfg.CacheDir)
		if err == nil {
			pool, err := start(ctx, cfg, rc.WithCompilationCache(cache))
			if err == nil {
				return &Runtime{pool: pool, cache: cache}, nil, nil
			}
			_ = cache.Close(ctx)
		}
		cacheErr = err
	}
	pool, err := start(ctx, cfg, rc)
	if err != nil {
		return nil, cacheErr, fmt.Errorf("starting PDFium: %w", err)
	}
	return &Runtime{pool: pool}, cacheErr, nil
}

func start(ctx context.Context, cfg Config, rc wazero.RuntimeConfig) (gopdfium.Pool, error) {
	stderr := cfg.Stderr
	if stderr == nil {
		stderr = io.Discard
	}
	return webassembly.Init(webassembly.Config{
		Context:       experimental.WithMemoryAllocator(context.WithoutCancel(ctx), memoryAllocator()),
		MinIdle:       0,
		MaxIdle:       cfg.MaxInstances,
		MaxTotal:      cfg.MaxInstances,
		RuntimeConfig: rc,
		// No host directory is visible to PDFium: documents are handed
		// over as bytes.
		FSConfig: wazero.NewFSConfig(),
		// stdout may carry a protocol (MCP over stdio): PDFium must never
		// write to it.
		Stdout: io.Discard,
		Stderr: stderr,
	})
}

// Close stops the runtime; instances still open become unusable.
func (r *Runtime) Close() error {
	err := r.pool.Close()
	if r.cache != nil {
		err = errors.Join(err, r.cache.Close(context.Background()))
	}
	return err
}

// guestFunc is the part of wazero's api.Function the calls need.
type guestFunc interface {
	CallWithStack(ctx context.Context, stack []uint64) error
}

// The exports used, resolved once per instance.
const (
	fnMalloc = iota
	fnFree
	fnGetLastError
	fnLoadMemDocument
	fnCloseDocument
	fnGetPageCount
	fnLoadPage
	fnClosePage
	fnPageWidth
	fnPageHeight
	fnPageRotation
	fnPageCropBox
	fnPageMediaBox
	fnTextLoadPage
	fnTextClosePage
	fnTextCountChars
	fnTextGetUnicode
	fnTextGetLooseCharBox
	fnTextHasUnicodeMapError
	fnTextGetFontSize
	fnTextGetFontWeight
	fnTextGetFontInfo
	fnTextGetMatrix
	fnGetPageLabel
	fnGetMetaText
	fnBookmarkFirstChild
	fnBookmarkNextSibling
	fnBookmarkTitle
	fnBookmarkDest
	fnBookmarkAction
	fnActionDest
	fnDestPageIndex
	fnDestLocation
	fnPageCountObjects
	fnPageGetObject
	fnPageObjGetType
	fnBitmapCreateEx
	fnBitmapFillRect
	fnBitmapGetBuffer
	fnBitmapGetStride
	fnBitmapDestroy
	fnRenderPageBitmap
	fnCount
)

var fnNames = [fnCount]string{
	fnMalloc:                 "malloc",
	fnFree:                   "free",
	fnGetLastError:           "FPDF_GetLastError",
	fnLoadMemDocument:        "FPDF_LoadMemDocument",
	fnCloseDocument:          "FPDF_CloseDocument",
	fnGetPageCount:           "FPDF_GetPageCount",
	fnLoadPage:               "FPDF_LoadPage",
	fnClosePage:              "FPDF_ClosePage",
	fnPageWidth:              "FPDF_GetPageWidthF",
	fnPageHeight:             "FPDF_GetPageHeightF",
	fnPageRotation:           "FPDFPage_GetRotation",
	fnPageCropBox:            "FPDFPage_GetCropBox",
	fnPageMediaBox:           "FPDFPage_GetMediaBox",
	fnTextLoadPage:           "FPDFText_LoadPage",
	fnTextClosePage:          "FPDFText_ClosePage",
	fnTextCountChars:         "FPDFText_CountChars",
	fnTextGetUnicode:         "FPDFText_GetUnicode",
	fnTextGetLooseCharBox:    "FPDFText_GetLooseCharBox",
	fnTextHasUnicodeMapError: "FPDFText_HasUnicodeMapError",
	fnTextGetFontSize:        "FPDFText_GetFontSize",
	fnTextGetFontWeight:      "FPDFText_GetFontWeight",
	fnTextGetFontInfo:        "FPDFText_GetFontInfo",
	fnTextGetMatrix:          "FPDFText_GetMatrix",
	fnGetPageLabel:           "FPDF_GetPageLabel",
	fnGetMetaText:            "FPDF_GetMetaText",
	fnBookmarkFirstChild:     "FPDFBookmark_GetFirstChild",
	fnBookmarkNextSibling:    "FPDFBookmark_GetNextSibling",
	fnBookmarkTitle:          "FPDFBookmark_GetTitle",
	fnBookmarkDest:           "FPDFBookmark_GetDest",
	fnBookmarkAction:         "FPDFBookmark_GetAction",
	fnActionDest:             "FPDFAction_GetDest",
	fnDestPageIndex:          "FPDFDest_GetDestPageIndex",
	fnDestLocation:           "FPDFDest_GetLocationInPage",
	fnPageCountObjects:       "FPDFPage_CountObjects",
	fnPageGetObject:          "FPDFPage_GetObject",
	fnPageObjGetType:         "FPDFPageObj_GetType",
	fnBitmapCreateEx:         "FPDFBitmap_CreateEx",
	fnBitmapFillRect:         "FPDFBitmap_FillRect",
	fnBitmapGetBuffer:        "FPDFBitmap_GetBuffer",
	fnBitmapGetStride:        "FPDFBitmap_GetStride",
	fnBitmapDestroy:          "FPDFBitmap_Destroy",
	fnRenderPageBitmap:       "FPDF_RenderPageBitmap",
}

// scratchSize is the guest buffer kept for out-parameters and short
// strings, so the hot path never allocates guest memory.
const scratchSize = 1024

// Instance is one PDFium instance: one module instance with its own
// memory. It is not safe for concurrent use; PDFium itself is
// single-threaded.
type Instance struct {
	inst    gopdfium.Pdfium
	mem     api.Memory
	fns     [fnCount]guestFunc
	scratch uint32
	stack   [8]uint64
	dead    bool
	docs    int
	pages   int
}

// ErrDead reports a call on an instance that an earlier failure (a trap,
// a deadline) has closed.
var ErrDead = errors.New("the PDFium instance was stopped")

// NewInstance instantiates the module. It blocks while MaxInstances are in
// use, until ctx ends.
func (r *Runtime) NewInstance(ctx context.Context) (*Instance, error) {
	inst, err := r.pool.GetInstanceWithContext(ctx)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, fmt.Errorf("starting a PDFium instance: %w", err)
	}
	in := &Instance{inst: inst}
	if err := in.bind(); err != nil {
		_ = inst.Kill()
		return nil, err
	}
	p, err := in.call(ctx, fnMalloc, scratchSize)
	if err != nil || p == 0 {
		in.Close()
		return nil, errors.New("starting a PDFium instance: no memory for its scratch buffer")
	}
	in.scratch = uint32(p)
	return in, nil
}

// bind finds the module behind go-pdfium's instance. go-pdfium keeps the
// instantiated module in the exported Module field of its implementation;
// its methods return types of an internal package, so they are reached by
// reflection, once per instance.
func (in *Instance) bind() (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("binding to PDFium: unexpected go-pdfium internals: %v", r)
		}
	}()
	impl := reflect.ValueOf(in.inst.GetImplementation())
	if impl.Kind() == reflect.Pointer {
		impl = impl.Elem()
	}
	if impl.Kind() != reflect.Struct {
		return fmt.Errorf("binding to PDFium: unexpected go-pdfium implementation %s", impl.Type())
	}
	mod := impl.FieldByName("Module")
	if !mod.IsValid() || mod.IsNil() {
		return errors.New("binding to PDFium: go-pdfium has no Module")
	}
	memOut := mod.MethodByName("Memory").Call(nil)
	mem, ok := memOut[0].Interface().(api.Memory)
	if !ok {
		return fmt.Errorf("binding to PDFium: memory is %T, not a wazero memory", memOut[0].Interface())
	}
	in.mem = mem
	export := mod.MethodByName("ExportedFunction")
	for i, name := range fnNames {
		if name == "" {
			return fmt.Errorf("binding to PDFium: export %d has no name", i)
		}
		out := export.Call([]reflect.Value{reflect.ValueOf(name)})[0]
		if out.IsNil() {
			return fmt.Errorf("binding to PDFium: the module does not export %s", name)
		}
		f, ok := out.Interface().(guestFunc)
		if !ok {
			return fmt.Errorf("binding to PDFium: %s is %T", name, out.Interface())
		}
		in.fns[i] = f
	}
	return nil
}

// Close releases the instance and all its memory. Safe to call twice.
func (in *Instance) Close() {
	if in.inst == nil {
		return
	}
	if in.dead {
		_ = in.inst.Kill()
	} else {
		_ = in.inst.Close()
	}
	in.inst = nil
	in.dead = true
}

// Dead reports whether the instance can no longer be used.
func (in *Instance) Dead() bool { return in.dead }

// MemorySize is the size of the instance's linear memory in bytes; it
// never shrinks, which is why instances are recycled.
func (in *Instance) MemorySize() uint64 {
	if in.dead || in.mem == nil {
		return 0
	}
	return uint64(in.mem.Size())
}

// Usage reports how many documents and pages the instance has opened.
func (in *Instance) Usage() (docs, pages int) { return in.docs, in.pages }

// call runs one export. Any failure leaves the instance dead: a trap or an
// aborted call can leave PDFium's state inconsistent.
func (in *Instance) call(ctx context.Context, fn int, args ...uint64) (uint64, error) {
	if in.dead {
		return 0, ErrDead
	}
	st := in.stack[:]
	copy(st, args)
	if err := in.fns[fn].CallWithStack(ctx, st); err != nil {
		in.dead = true
		if ctx.Err() != nil {
			return 0, ctx.Err()
		}
		return 0, fmt.Errorf("PDFium %s: %w", fnNames[fn], err)
	}
	return st[0], nil
}

func (in *Instance) malloc(ctx context.Context, n int) (uint32, error) {
	p, err := in.call(ctx, fnMalloc, uint64(n))
	if err != nil {
		return 0, err
	}
	if p == 0 {
		return 0, errors.New("PDFium is out of memory")
	}
	return uint32(p), nil
}

func (in *Instance) free(ctx context.Context, p uint32) {
	if p != 0 && !in.dead {
		_, _ = in.call(ctx, fnFree, uint64(p))
	}
}

// utf16String reads a NUL-terminated UTF-16LE string of at most n bytes.
func (in *Instance) utf16String(p uint32, n uint32) string {
	b, ok := in.mem.Read(p, n)
	if !ok {
		return ""
	}
	u := make([]uint16, 0, len(b)/2)
	for i := 0; i+1 < len(b); i += 2 {
		c := uint16(b[i]) | uint16(b[i+1])<<8
		if c == 0 {
			break
		}
		u = append(u, c)
	}
	return decodeUTF16(u)
}
