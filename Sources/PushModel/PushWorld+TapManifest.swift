import PreloadKit
import SimKernel

// What a tap must fetch before painting, in order: the campaign's referenced manifest (when the
// device has not fetched it: the app learns the screen's asset URLs from it), fresh signed URLs
// (when the push's have expired), then the missing assets.
extension PushWorld {
    /// Tap `t` misses assets of its paint set: one round trip for the referenced manifest if the
    /// device lacks it, else one for fresh signed URLs if the push's have expired, else the
    /// missing assets in parallel.
    mutating func fetchForTap(_ tap: TapID, kernel: inout Kernel) throws {
        let t = tap.index
        let c = taps.tCampaign[t]
        if driver.needsManifest(DeviceID(rawValue: taps.tDevice[t]), campaign: CampaignID(c)) {
            return try taps.foregroundFetch(tap, object: plans.manifestObject[c], index: TapTracker.manifestIndex,
                                            infra: &infra, metrics: &metrics, kernel: &kernel)
        }
        if kernel.now.ticks - taps.tSend[t] > rt[c].tokenLifetimeTicks {
            // The signed URLs in the push have expired: one round trip to refresh them first.
            metrics.counters.tokenRefreshes += 1
            try taps.foregroundFetch(tap, object: plans.tokenObject[c], index: 255, infra: &infra, metrics: &metrics, kernel: &kernel)
        } else {
            try taps.fetchMissing(tap, infra: &infra, metrics: &metrics, kernel: &kernel)
        }
    }

    /// Tap `t`'s referenced manifest arrived: the device holds it now; on to the assets.
    mutating func onTapManifest(_ tap: TapID, kernel: inout Kernel) throws {
        let t = tap.index
        driver.manifestHeld[Int(taps.tDevice[t])] |= CampaignID(taps.tCampaign[t]).bit
        try fetchForTap(tap, kernel: &kernel)
    }
}
