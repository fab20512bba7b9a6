/// Limits of the scenario format, stated once; the command line takes its flag ranges from here.
package enum ScenarioLimits {
    /// Most replications of one run (`run.replications`, `--replications`, a sweep's `replications`).
    package static let replicationsMax = 10_000
    /// Most devices of one population (`population.devices`, `run.devices`, `--devices`, a sweep's `devices`).
    package static let devicesMax = 50_000_000
    // Most campaigns of one world: `PushWorldConfig.campaignsMax` (PushModel's per-device campaign sets).
    /// Most events of one replication (`run.eventsMax`).
    static let eventsMaxRange: ClosedRange<UInt64> = 1...1_000_000_000_000
    /// Confidence levels of intervals (`run.confidenceLevel`, `slo[].confidence`).
    static let confidenceLevels: ClosedRange<Double> = 0.5...0.999
}
