/// A set of a world's campaigns held per device, bit c for campaign c (`SessionDriver.staleStored`,
/// `SessionDriver.manifestHeld`): one `UInt64` a device, so a world has at most
/// `PushWorldConfig.campaignsMax` campaigns.
typealias CampaignBits = UInt64

extension CampaignID {
    /// The campaign's bit in a per-device `CampaignBits` set.
    @inline(__always) var bit: CampaignBits { 1 << CampaignBits(rawValue) }
}

extension PushWorldConfig {
    /// Most campaigns of one world: one bit each in a device's campaign set (`CampaignBits`, so
    /// `UInt64.bitWidth`). A push's 8-bit campaign field (`PushWord`) holds every one of them.
    package static let campaignsMax = CampaignBits.bitWidth

    /// Refuses a world with more campaigns than `campaignsMax` (a later campaign's bit would be
    /// lost from every per-device campaign set).
    /// - Throws: `PushModelError` at `campaigns`.
    func checkCampaignCount() throws {
        precondition(Self.campaignsMax <= 1 << PushWord.campaignBits, "PushWord's campaign field must hold every campaign")
        guard campaigns.count <= Self.campaignsMax else {
            throw PushModelError(path: "campaigns", reason: "expected at most \(Self.campaignsMax) campaigns (one bit each in a device's "
                                 + "\(CampaignBits.bitWidth)-bit campaign set), found \(campaigns.count)")
        }
    }
}
