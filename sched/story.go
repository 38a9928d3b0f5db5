package sched

import (
	"runtime"
	"strconv"
	"strings"

	"github.com/cbcsim/cbcsim/sched/internal/link"
	"github.com/cbcsim/cbcsim/trace"
)

// The story of a run (link.Options.Story, docs/trace-format.md): the
// events a reader needs to follow who did what, beyond the scheduler's own
// decisions. A version-3 seeded run writes them; a replay of a version-1
// or version-2 trace does not, so that those replay byte for byte.
//
//   - chan: every completed channel operation, with its peer task
//     (chanSend, chanRecv, chanClose);
//   - a sleep's block event carries the tick it wakes at (until);
//   - with link.Options.Sites, the Go source line of the sched call each
//     suspension of a task is in (site), for a sink that implements
//     link.SiteSink: a Go body's "which op did this step run".
//
// Every call here is made only when w.story() holds, so that a run without
// a story pays one bit test per channel operation.

// story reports whether w's run writes the story events (modeStory).
func (w *worker) story() bool { return w.mode&modeStory != 0 }

// chanSend records t's completed send on c: straight to the receiver peer,
// or into the buffer (peer nil), where the sender is kept for the
// receive's event. Called with c's lock held (or c unshared).
func (c *channel) chanSend(t *Task, peer *Task) {
	if peer == nil {
		if c.from == nil {
			c.from = make([]uint64, c.cap)
		}
		c.from[(c.head+c.n)%c.cap] = t.id
		t.w.em.emit(trace.KindChan, trace.I(trace.KeyTask, int64(t.id)), trace.S(trace.KeyOp, "send"),
			trace.S(trace.KeyCh, c.name), trace.S(trace.KeyVia, "buffer"))
		return
	}
	t.w.em.emit(trace.KindChan, trace.I(trace.KeyTask, int64(t.id)), trace.S(trace.KeyOp, "send"),
		trace.S(trace.KeyCh, c.name), trace.I(trace.KeyPeer, int64(peer.id)))
}

// chanRecvBuffered records t's receive of the value at the buffer's head,
// before the head moves: its peer is the task that sent it.
func (c *channel) chanRecvBuffered(t *Task) {
	var from uint64
	if c.from != nil {
		from = c.from[c.head]
	}
	t.w.em.emit(trace.KindChan, trace.I(trace.KeyTask, int64(t.id)), trace.S(trace.KeyOp, "recv"),
		trace.S(trace.KeyCh, c.name), trace.I(trace.KeyPeer, int64(from)), trace.S(trace.KeyVia, "buffer"))
}

// chanRecvDirect records t's receive straight from the parked sender peer.
func (c *channel) chanRecvDirect(t, peer *Task) {
	t.w.em.emit(trace.KindChan, trace.I(trace.KeyTask, int64(t.id)), trace.S(trace.KeyOp, "recv"),
		trace.S(trace.KeyCh, c.name), trace.I(trace.KeyPeer, int64(peer.id)))
}

// chanSendParked records the send of s, a parked sender whose value a
// receive by t moved into the buffer: s's send completed, through the
// buffer, in t's step.
func (c *channel) chanSendParked(t, s *Task) {
	if c.from == nil {
		c.from = make([]uint64, c.cap)
	}
	c.from[(c.head+c.n)%c.cap] = s.id
	t.w.em.emit(trace.KindChan, trace.I(trace.KeyTask, int64(s.id)), trace.S(trace.KeyOp, "send"),
		trace.S(trace.KeyCh, c.name), trace.S(trace.KeyVia, "buffer"))
}

// syncName is the name of a Mutex or RWMutex in the trace: its Name,
// name, if it has one, else kind#id, its id given at its first lock (*id
// is 0 until then). Called with the primitive's lock held.
func (t *Task) syncName(kind, name string, id *uint64) string {
	if name != "" {
		return name
	}
	if *id == 0 {
		*id = t.s.nextSyncID.Add(1)
	}
	return kind + "#" + strconv.FormatUint(*id, 10)
}

// lockEvent records t's op (lock, unlock, rlock, runlock) on the lock
// named obj: who holds which lock, which a deadlock's waits name.
func (t *Task) lockEvent(op, obj string) {
	t.w.em.emit(trace.KindLock, trace.I(trace.KeyTask, int64(t.id)), trace.S(trace.KeyOp, op), trace.S(trace.KeyOn, obj))
}

// chanClose records t's close of c.
func (c *channel) chanClose(t *Task) {
	t.w.em.emit(trace.KindChan, trace.I(trace.KeyTask, int64(t.id)), trace.S(trace.KeyOp, "close"),
		trace.S(trace.KeyCh, c.name))
}

// siteSkip are the function name prefixes of the frames a Go site skips:
// the scheduler's own, its fibers', the runtime's.
var siteSkip = []string{
	"github.com/cbcsim/cbcsim/sched.",
	"github.com/cbcsim/cbcsim/sched/",
	"github.com/cbcsim/cbcsim/fiber.",
	"runtime.",
}

// siteCache maps a pc to its site, "" for a frame to skip. Only the
// driver's goroutine or the fiber it resumed runs a stepped run's tasks,
// one at a time, so that one run's cache needs no lock; it is the
// scheduler's.
type siteCache map[uintptr]string

// site records, for a sink that wants Go sites, the first frame of t's
// stack outside the scheduler: the file's base name and the line of the
// sched call t suspends in. Base names keep it the same on every machine.
func (t *Task) site() {
	ss, ok := t.s.cfg.Sink.(link.SiteSink)
	if !ok {
		return
	}
	var pcs [16]uintptr
	n := runtime.Callers(3, pcs[:])
	if t.s.sites == nil {
		t.s.sites = siteCache{}
	}
	for _, pc := range pcs[:n] {
		s, seen := t.s.sites[pc]
		if !seen {
			s = siteOf(pc)
			t.s.sites[pc] = s
		}
		if s != "" {
			ss.Site(t.id, s)
			return
		}
	}
}

// siteOf is the site of the frame at pc, "" for one of the scheduler's.
// A pc stands for several frames when calls were inlined into its
// function: the innermost outside the scheduler is the site.
func siteOf(pc uintptr) string {
	frames := runtime.CallersFrames([]uintptr{pc})
	for {
		f, more := frames.Next()
		if !skipped(f.Function) {
			file := f.File
			if i := strings.LastIndexByte(file, '/'); i >= 0 {
				file = file[i+1:]
			}
			return file + ":" + strconv.Itoa(f.Line)
		}
		if !more {
			return ""
		}
	}
}

func skipped(function string) bool {
	for _, p := range siteSkip {
		if strings.HasPrefix(function, p) {
			return true
		}
	}
	return false
}
