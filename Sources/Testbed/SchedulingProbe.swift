import Foundation

/// How late this process's threads wake up during the run: a thread sleeps 10 ms at a time and
/// records how much later than asked it woke. On a machine busy with other work the wake-ups,
/// and every real-clock latency the testbed measures, stretch by about as much; the comparison
/// does not judge latencies when this lag is large (``TestbedComparison/schedulingLagLimitSeconds``).
public final class SchedulingProbe: @unchecked Sendable {
    static let periodMicroseconds: UInt32 = 10_000
    /// At most this many wake-ups are kept (about 15 minutes at 10 ms).
    static let samplesMax = 90_000
    private let lock = NSLock()
    private var lags: [Double] = []
    private var running = true
    private let done = DispatchSemaphore(value: 0)

    public init() {
        Thread { [self] in
            while lock.withLock({ running }) {
                let before = DispatchTime.now().uptimeNanoseconds
                usleep(Self.periodMicroseconds)
                let slept = Double(DispatchTime.now().uptimeNanoseconds - before) / 1e9
                lock.withLock { if lags.count < Self.samplesMax { lags.append(max(0, slept - Double(Self.periodMicroseconds) / 1e6)) } }
            }
            done.signal()
        }.start()
    }

    /// Stops the probe and returns the 95th percentile of the lag, seconds.
    public func stop() -> Double {
        lock.withLock { running = false }
        done.wait()
        let sorted = lock.withLock { lags.sorted() }
        guard !sorted.isEmpty else { return 0 }
        return sorted[min(sorted.count - 1, Int(Double(sorted.count) * 0.95))]
    }
}
