import InfraModel
import SimKernel

// A campaign's warm and purge calls, counted to it when they go through a CDN API profile
// (`CdnApiTally`). Without a profile they are the free calls and nothing is counted.

extension PushWorld {
    /// Campaign `c` warms its objects into `target` at `at`, for its send at `sendTicks` (through a
    /// profile, `at` is now: every such call is made at its instant, `PushEvent.rewarm`).
    mutating func warmCampaign(_ c: Int, at: SimTime, target: WarmTarget, sendTicks: Int64, kernel: inout Kernel) throws {
        guard metrics.cdnApiTally.enabled, let before = infra.cdnApiCounters else {
            return try infra.warm(objects: plans.warmObjects[c], at: at, target: target, kernel: &kernel)
        }
        try infra.warm(objects: plans.warmObjects[c], at: at, target: target, kernel: &kernel)
        if let after = infra.cdnApiCounters {
            metrics.cdnApiTally.note(campaign: c, before: before, after: after, isPurge: false, callTicks: at.ticks,
                                     completeTicks: infra.cdnApiLastWarmTicks ?? 0, sendTicks: sendTicks)
        }
    }

    /// Campaign `c`'s creative swap purges its surrogate key now, before its first send.
    mutating func purgeCampaign(_ c: Int, kernel: inout Kernel) throws {
        guard metrics.cdnApiTally.enabled, let before = infra.cdnApiCounters else {
            return try infra.purge(surrogateKey: UInt32(c), kernel: &kernel)
        }
        try infra.purge(surrogateKey: UInt32(c), kernel: &kernel)
        if let after = infra.cdnApiCounters {
            metrics.cdnApiTally.note(campaign: c, before: before, after: after, isPurge: true, callTicks: kernel.now.ticks,
                                     completeTicks: infra.cdnApiLastPurge?.completeTicks ?? 0, sendTicks: firstSendTicks(c))
        }
    }

    /// The send a warm call of campaign `c` at `now` is for: its first calendar wave starting at
    /// or after `now`, else its first send (a re-warm after a swap: the send the swap precedes).
    func warmSendTicks(_ c: Int, from now: Int64) -> Int64 {
        calendars.campaigns[c]?.waveStartTicks.first { $0 >= now } ?? firstSendTicks(c)
    }
}
