import Stochastic

extension Population {
    /// Device `d`'s region: the third draw of its attribute stream, as `device(_:)` makes it
    /// (after the platform and force-quit draws), without drawing the rest (the campaign calendar
    /// reads it for waves and region targeting).
    func region(of d: DeviceID) -> Int {
        let rng = stream(entity: UInt64(d.rawValue), purpose: Population.purposeDeviceAttributes)
        _ = rng.bernoulli(iosShare)
        _ = rng.bernoulli(forceQuitShare)
        return regionTable.draw(rng)
    }
}
