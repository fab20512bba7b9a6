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

    /// Campaign `c`'s creative swap purges its surrogate key now, before its send (or calendar
    /// wave) at `sendTicks`.
    mutating func purgeCampaign(_ c: Int, sendTicks: Int64, kernel: inout Kernel) throws {
        guard metrics.cdnApiTally.enabled, let before = infra.cdnApiCounters else {
            return try infra.purge(surrogateKey: UInt32(c), kernel: &kernel)
        }
        try infra.purge(surrogateKey: UInt32(c), kernel: &kernel)
        if let after = infra.cdnApiCounters {
            metrics.cdnApiTally.note(campaign: c, before: before, after: after, isPurge: true, callTicks: kernel.now.ticks,
                                     completeTicks: infra.cdnApiLastPurge?.completeTicks ?? 0, sendTicks: sendTicks)
        }
    }

    /// The send a warm call or creative swap of campaign `c` for `wave` is for: that calendar
    /// wave's start, else (no calendar: wave 0) its first send.
    func waveSendTicks(_ c: Int, wave: Int) -> Int64 {
        guard let starts = calendars.campaigns[c]?.waveStartTicks, wave < starts.count else { return firstSendTicks(c) }
        return starts[wave]
    }
}
