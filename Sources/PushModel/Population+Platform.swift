import Stochastic

extension Population {
    /// The stream purpose of a device's attributes (`device(_:)`'s).
    static let purposeDeviceAttributes = StreamPurpose("push.device").rawValue

    /// Whether device `d` is an iOS device: the first draw of its attribute stream, as
    /// `device(_:)` makes it, without drawing the rest (the push-provider layer routes by it).
    func isIOS(_ d: DeviceID) -> Bool {
        stream(entity: UInt64(d.rawValue), purpose: Population.purposeDeviceAttributes).bernoulli(iosShare)
    }
}
