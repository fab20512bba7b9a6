import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// How much CPU the testbed's threads get while the devices run. Every 200 ms a probe thread does
/// 10 ms of CPU work (measured on its own CPU-time clock) and records the wall time that took: the
/// stretch is 1 when a runnable thread gets a core at once, about k when it shares one with k − 1
/// others (other jobs on the machine, or a lower `nice` priority). The work is longer than the
/// scheduler's credit for a thread waking from sleep (a few ms), so the probe sees the fair share,
/// not just the wake-up; it costs 5 % of one core. Every real-clock latency the testbed
/// measures — URLSession, the driver, the shaper's pacing, Varnish — stretches the same way, so the
/// comparison judges latencies only when the median stretch is small
/// (``TestbedComparison/cpuStretchLimit``). A sleeping probe would not see this: the scheduler
/// favours threads waking from sleep.
package final class SchedulingProbe: @unchecked Sendable {
    static let periodMicroseconds: UInt32 = 200_000
    static let workNanoseconds: Int64 = 10_000_000
    /// At most this many probes are kept (about 100 minutes).
    static let samplesMax = 30_000
    private let lock = NSLock()
    private var stretches: [Double] = []
    private var running = true
    private let done = DispatchSemaphore(value: 0)

    package init() {
        Thread { [self] in
            while lock.withLock({ running }) {
                let wallStart = Self.now(CLOCK_MONOTONIC)
                let cpuStart = Self.now(CLOCK_THREAD_CPUTIME_ID)
                var spins: UInt64 = 0
                while Self.now(CLOCK_THREAD_CPUTIME_ID) - cpuStart < Self.workNanoseconds { spins &+= 1 }
                let wall = Double(Self.now(CLOCK_MONOTONIC) - wallStart)
                lock.withLock { if stretches.count < Self.samplesMax { stretches.append(wall / Double(Self.workNanoseconds)) } }
                usleep(Self.periodMicroseconds)
            }
            done.signal()
        }.start()
    }

    static func now(_ clock: clockid_t) -> Int64 {
        var ts = timespec()
        clock_gettime(clock, &ts)
        return Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec)
    }

    /// Stops the probe and returns the median stretch (1 = the CPU was there when needed).
    package func stop() -> Double {
        lock.withLock { running = false }
        done.wait()
        let sorted = lock.withLock { stretches.sorted() }
        guard !sorted.isEmpty else { return 1 }
        return sorted[sorted.count / 2]
    }

    /// The machine's CPU pressure (PSI `some avg60`, percent of time a runnable task waited), or
    /// nil without /proc/pressure/cpu.
    package static func cpuPressurePercent() -> Double? {
        guard let text = try? String(contentsOfFile: "/proc/pressure/cpu", encoding: .utf8),
              let line = text.split(separator: "\n").first(where: { $0.hasPrefix("some") }),
              let field = line.split(separator: " ").first(where: { $0.hasPrefix("avg60=") }) else { return nil }
        return Double(field.dropFirst("avg60=".count))
    }
}
