import Foundation
import PushModel
import ReportKit

extension ReportBuilder {
    /// The send windows of a campaign sent at a local time (`sendAtLocalSeconds`): one band per
    /// wave, from its start for the wave's expected pushes at the campaign's rate
    /// (`CalendarRules.plannedWaves`; an estimate for shading only, without the queueing of a wave
    /// behind a longer one); nil for any other campaign.
    static func calendarSendBands(_ world: PushWorldConfig, campaign c: Int) -> [TimeBand]? {
        let campaign = world.campaigns[c]
        guard campaign.sendAtLocalSeconds != nil else { return nil }
        let pushes = campaign.timing.pushesTargeted(devices: world.population.devices)
        let rate = max(campaign.timing.sendRatePerSecond, 1e-9)
        return CalendarRules.plannedWaves(world, campaign: c).enumerated().map { k, wave in
            let end = wave.startSeconds + pushes * wave.share / rate
            return TimeBand(fromSeconds: wave.startSeconds, toSeconds: min(max(end, wave.startSeconds + 1), world.horizonSeconds),
                            label: "send \(campaign.name) wave \(k + 1)")
        }
    }
}
