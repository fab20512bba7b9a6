import Dispatch
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The clock of the progress display (`ProgressBoard`): monotonic wall time, or, when the
/// environment sets `PRESTAGE_PROGRESS_CLOCK=cpu`, the process's CPU time. The CPU clock is for
/// tests of the ETA on a shared machine: it advances only while the run itself computes, so other
/// processes' load (which changes the wall time left after an estimate was made) cannot move it,
/// while the estimate is made exactly as on the wall clock. Never used for results.
package enum ProgressClock {
    /// Whether the process's CPU time is the clock (read once).
    package static let isProcessCPUTime = ProcessInfo.processInfo.environment["PRESTAGE_PROGRESS_CLOCK"] == "cpu"

    /// The clock's reading, nanoseconds.
    package static func nowNanoseconds() -> UInt64 {
        #if canImport(Glibc)
        if isProcessCPUTime {
            var t = timespec()
            if clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t) == 0 {
                return UInt64(max(0, t.tv_sec)) &* 1_000_000_000 &+ UInt64(max(0, t.tv_nsec))
            }
        }
        #endif
        return DispatchTime.now().uptimeNanoseconds
    }
}
