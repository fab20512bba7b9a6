import SimKernel

/// The kernel's pending-event set over a run, sampled every `RunLimits.progressEveryEvents` events.
@_spi(Benchmark)
public struct PendingEventProfile: Sendable, Equatable {
    /// Samples taken.
    package private(set) var samples: UInt64 = 0
    /// Sum of the kernel's live pending counts over the samples.
    package private(set) var kernelPendingSum: UInt64 = 0
    /// Largest kernel pending count sampled.
    package private(set) var kernelPendingMax = 0
    /// Sum of the far-event entries held in PushModel's buckets (outside the kernel).
    package private(set) var bucketedSum: UInt64 = 0

    package init() {}

    /// Mean live pending events in the kernel over the samples (0 without samples).
    package var kernelPendingMean: Double { samples == 0 ? 0 : Double(kernelPendingSum) / Double(samples) }
    /// Mean entries held in the far-event buckets over the samples (0 without samples).
    package var bucketedMean: Double { samples == 0 ? 0 : Double(bucketedSum) / Double(samples) }

    /// Adds one sample.
    /// - Complexity: O(1).
    mutating func add(kernelPending: Int, bucketed: Int) {
        samples &+= 1
        kernelPendingSum &+= UInt64(max(0, kernelPending))
        kernelPendingMax = max(kernelPendingMax, kernelPending)
        bucketedSum &+= UInt64(max(0, bucketed))
    }
}

/// One replication of the full model, built and run in two steps so that a benchmark can time the
/// event loop alone (world construction excluded). For `prestage-kernel-bench`; not public API.
@_spi(Benchmark)
public struct PushBenchmarkRun {
    var world: PushWorld

    /// Builds replication `replication` of `config`; `bucketFarEvents: false` schedules taps,
    /// deferred pushes and long provider delays directly in the kernel instead of in 10-second
    /// buckets (same events, same results, a larger pending set).
    /// - Throws: as `PushSimulation.run`.
    package init(_ config: PushWorldConfig, masterSeed: UInt64, replication: Int, bucketFarEvents: Bool) throws {
        world = try PushWorld(config: config, masterSeed: masterSeed, replication: replication, progressSink: nil,
                              bucketFarEvents: bucketFarEvents)
    }

    /// Runs the replication, sampling the pending-event set every `sampleEveryEvents` events.
    /// - Throws: as `PushSimulation.run`.
    package mutating func run(sampleEveryEvents: UInt64) throws -> (result: ReplicationResult, profile: PendingEventProfile) {
        let result = try world.run(limits: RunLimits(progressEveryEvents: sampleEveryEvents))
        return (result, world.pendingProfile)
    }
}
