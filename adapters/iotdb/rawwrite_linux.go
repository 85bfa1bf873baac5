package iotdb

import (
	"net"
	"syscall"
	"unsafe"
)

// rawWrites returns a writer of whole frames to conn that does not hand
// its goroutine's processor back to the scheduler for the system call.
// Sending a tablet of 50 KB over loopback takes the kernel 30–60 µs,
// longer than the 20 µs after which Go's monitor gives the processor of a
// goroutine in a system call to another thread; with tsbench's clients
// always having batches to make, it did so for nearly every write, and the
// writer's thread then slept to get one back: two more context switches a
// request, and about a third of tsbench's system CPU against IoTDB. The
// socket is non-blocking, so the write never waits: when the kernel takes
// no more, the poller waits for room (and honours deadlines and Close).
func rawWrites(conn net.Conn) func([]byte) error {
	tc, ok := conn.(*net.TCPConn)
	if !ok {
		return nil
	}
	rc, err := tc.SyscallConn()
	if err != nil {
		return nil
	}
	return func(b []byte) error {
		var werr error
		err := rc.Write(func(fd uintptr) bool {
			for len(b) > 0 {
				n, _, e := syscall.RawSyscall(syscall.SYS_WRITE, fd, uintptr(unsafe.Pointer(&b[0])), uintptr(len(b)))
				switch e {
				case 0:
					b = b[n:]
				case syscall.EINTR:
				case syscall.EAGAIN:
					return false
				default:
					werr = &net.OpError{Op: "write", Net: "tcp", Addr: conn.RemoteAddr(), Err: e}
					return true
				}
			}
			return true
		})
		if err != nil {
			return err
		}
		return werr
	}
}
