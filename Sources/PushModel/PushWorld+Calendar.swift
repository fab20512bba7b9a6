import Foundation
import SimKernel

// Sending by the campaign calendar: a campaign using a calendar field sends its waves one after
// the other at its one send rate (a wave not finished when the next one's local time comes holds
// the next one back), each wave a pass over the devices in the regions of one UTC offset.

extension PushWorld {
    /// The instant of campaign `c`'s first send, ticks: its first wave's start with a calendar,
    /// else `sendStartSeconds`.
    func firstSendTicks(_ c: Int) -> Int64 {
        calendars.campaigns[c]?.waveStartTicks.first ?? config.campaigns[c].timing.sendStartTicks
    }

    /// The instants campaign `c` calls its warm, ticks: `warm.aheadSeconds` before each of its
    /// waves (not before 0) with a calendar, else `timing.warmTicks`, the one before
    /// `sendStartSeconds`. A wave sent at 09:00 local four hours after the first one finds caches
    /// its own warm call filled, not ones the first wave's call filled hours earlier.
    func warmCallTicks(_ c: Int) -> [Int64] {
        let timing = config.campaigns[c].timing
        guard let waves = calendars.campaigns[c]?.waveStartTicks else { return [timing.warmTicks] }
        let ahead = SimDuration.seconds(timing.warmAheadSeconds).ticks
        return waves.map { max(0, $0 - ahead) }
    }

    /// The instants campaign `c`'s creative swap purges, ticks: `creativeSwap.secondsBeforeSend`
    /// before each of its waves (not before 0) with a calendar, else `timing.swapTicks`, the one
    /// before `sendStartSeconds`; empty without a swap. Each wave's taps get the creative current
    /// at its own send, the swap made for it.
    func swapCallTicks(_ c: Int) -> [Int64] {
        let timing = config.campaigns[c].timing
        guard let lead = timing.swapBeforeSendSeconds else { return [] }
        guard let waves = calendars.campaigns[c]?.waveStartTicks else { return timing.swapTicks.map { [$0] } ?? [] }
        let leadTicks = SimDuration.seconds(lead).ticks
        return waves.map { max(0, $0 - leadTicks) }
    }

    /// Campaign `c` finished a wave at `now`: moves to the next one and returns the instant its
    /// send starts (its local time, or the next second when the wave ran past it); nil when it was
    /// the last wave.
    mutating func nextWave(_ c: Int, now: Int64) -> Int64? {
        guard let cal = calendars.campaigns[c] else { return nil }
        sendWave[c] += 1
        guard sendWave[c] < cal.waveStartTicks.count else { return nil }
        sendCursor[c] = 0
        return max(cal.waveStartTicks[sendWave[c]], now + 1_000_000)
    }

    /// The pushes campaign `c` (with a calendar) has not sent by the horizon: its audience in the
    /// waves not started, and in the current wave from the cursor on.
    /// - Complexity: O(devices) audience draws.
    mutating func unsentCalendarPushes(_ c: Int) -> UInt64 {
        let parts = UInt64(config.campaigns[c].pushesPerDevice)
        let current = sendWave[c]
        let cursor = sendCursor[c]
        var remaining: UInt64 = 0
        for d in 0..<population.deviceCount where calendars.isMember(DeviceID(d), campaign: c, wave: -1, population: population) {
            let w = calendars.wave(of: DeviceID(d), campaign: c, population: population)
            if w > current || (w == current && d >= cursor) { remaining += parts }
        }
        sendWave[c] = Int.max
        return remaining
    }

    /// For the progress report: how far campaign `c`'s waves have got, in devices passed as if its
    /// waves were one pass over the population (waves done plus the current wave's cursor, over
    /// the waves); nil for a campaign without a calendar.
    func calendarCursor(_ c: Int) -> Double? {
        guard let cal = calendars.campaigns[c] else { return nil }
        let waves = Double(max(1, cal.waveStartTicks.count))
        let done = Double(min(sendWave[c], cal.waveStartTicks.count))
        let current = sendWave[c] < cal.waveStartTicks.count ? Double(sendCursor[c]) / Double(max(1, population.deviceCount)) : 0
        return Double(population.deviceCount) * min(1, (done + current) / waves)
    }
}
