import Foundation
import SimKernel

/// Event kinds of this module (raw values 0x0200–0x02FF).
package enum PushEventKind {
    package static let range: ClosedRange<UInt16> = 0x0200...0x02FF
}

/// Runs one replication of a push pre-stage world.
package enum PushSimulation {
    /// Simulates `config` for replication `replication` of `masterSeed`.
    ///
    /// Every variate comes from streams keyed by (`StreamSeed.derive(masterSeed, replication)`,
    /// entity, purpose): replication r of two variants of a world sees the same devices, users
    /// and tap times (common random numbers). Same inputs → byte-identical encoded result. No
    /// shared mutable state: replications may run on several threads at once.
    /// - Parameters:
    ///   - limits: `eventsMax` and `progressEveryEvents` apply; the time limit is the world's
    ///     `horizonSeconds` (a smaller `limits.timeMax` stops earlier).
    ///   - progress: called every `limits.progressEveryEvents` events (0: never).
    /// - Throws: `PushModelError` naming the configuration path when the world cannot be built
    ///   (e.g. a distribution GSL cannot sample); `KernelError` / `InfraError` if the run fails.
    /// - Complexity: O(events · log pending). Memory: ≈ 23 bytes of per-device state, 20 bytes
    ///   per preload-store entry parked between sessions, plus active sessions and taps only.
    ///   Measured (release, black-friday-flash-sale, 2 h, see docs/performance.md): 5 M devices
    ///   ≈ 50 M events in 43 s CPU, 430 MB peak RSS; 50 M devices ≈ 500 M events in 452 s, 3.0 GiB.
    package static func run(_ config: PushWorldConfig, masterSeed: UInt64, replication: Int,
                           limits: RunLimits = RunLimits(), progress: ProgressSink? = nil) throws -> ReplicationResult {
        var world = try PushWorld(config: config, masterSeed: masterSeed, replication: replication, progressSink: progress)
        return try world.run(limits: limits)
    }

    /// `run`, recording every processed event (PushModel's and InfraModel's) in `trace`, in order.
    /// The result equals `run`'s for the same inputs; `run` itself never pays for tracing.
    /// - Complexity: `run`'s, plus one `trace.record` per event.
    package static func run<Sink: EventTraceSink>(_ config: PushWorldConfig, masterSeed: UInt64, replication: Int,
                                                 limits: RunLimits = RunLimits(), trace: inout Sink) throws -> ReplicationResult {
        var traced = TracingHandler(inner: try PushWorld(config: config, masterSeed: masterSeed, replication: replication, progressSink: nil),
                                    sink: trace)
        var kernel = try traced.inner.startKernel()
        let outcome = try kernel.run(&traced, limits: traced.inner.kernelLimits(limits))
        trace = traced.sink
        return try traced.inner.finish(kernel: kernel, outcome: outcome)
    }
}
