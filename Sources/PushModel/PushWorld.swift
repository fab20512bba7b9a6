import SimKernel

// Work in progress: the engine lands in the next commits.
struct PushWorld {
    init(config: PushWorldConfig, masterSeed: UInt64, replication: Int, progressSink: ProgressSink?) throws {
        throw PushModelError(path: "", reason: "PushModel engine not yet implemented (API skeleton)")
    }

    mutating func run(limits: RunLimits) throws -> ReplicationResult {
        throw PushModelError(path: "", reason: "PushModel engine not yet implemented (API skeleton)")
    }
}
