// Replay protection: a signed expiry (`exp`) and campaign binding (`campaign_id`) for every
// payload form and for fetched manifests. See `PayloadParser` for the wire format.

/// Whether a payload (and a fetched manifest) must carry a signed expiry, `exp`.
public enum ExpiryRequirement: UInt8, Sendable, CaseIterable {
    /// Refuse a payload or manifest without `exp` (`.expiryMissing`).
    case required
    /// Check `exp` when present; accept a payload without one (the default, so that campaign
    /// services that do not sign an expiry yet keep working). Such a payload can be replayed for
    /// as long as the signing key is in use: switch to `.required` once every sender signs `exp`.
    case ifPresent
}

/// The signed replay fields of one payload or manifest object.
struct ReplayFields {
    /// `exp` on the `Instant` timeline; nil when absent.
    var expiresAt: Instant?
    /// `campaign_id`; nil when absent.
    var campaignID: String?
    /// Where `exp` is (or would be): the path of expiry rejections.
    var expiryPath: String
    /// `open_pct`, the campaign service's open-probability hint in whole percent; nil when absent.
    var openPercent: Int?

    /// Largest `exp` accepted: the last whole second an `Instant` can represent.
    static let expirySecondsMax = Int64.max / 1_000_000
}

extension PayloadParser {
    /// Reads the optional `exp` and `campaign_id` of the object `m` at `path` and appends their
    /// canonical lines (`exp=<decimal>`, then `campaign_id=<id>`, then `open_pct=<decimal>`, each
    /// only when present). `open_pct` is not a replay field but is signed the same way.
    static func readReplayFields(_ m: PayloadValue, path: String, limits: PayloadLimits, canonical: inout Canonical) throws(PayloadRejection) -> ReplayFields {
        let expiryPath = path == "$" ? "$.exp" : "\(path).exp"
        var fields = ReplayFields(expiryPath: expiryPath)
        if let seconds = try readInteger(m["exp"], path: expiryPath, min: 0, max: ReplayFields.expirySecondsMax) {
            fields.expiresAt = Instant.zero.advanced(bySeconds: seconds)
            canonical.line("exp=\(seconds)")
        }
        if m["campaign_id"] != nil {
            let campaignPath = path == "$" ? "$.campaign_id" : "\(path).campaign_id"
            let campaignID = try readIdentifier(m["campaign_id"], path: campaignPath, name: "campaign_id", limits: limits)
            fields.campaignID = campaignID
            canonical.line("campaign_id=\(campaignID)")
        }
        let hintPath = path == "$" ? "$.open_pct" : "\(path).open_pct"
        if let percent = try readInteger(m["open_pct"], path: hintPath, min: 0, max: 100) {
            fields.openPercent = Int(percent)
            canonical.line("open_pct=\(percent)")
        }
        return fields
    }

    /// Refuses `request` at `now` when its signed expiry has passed by more than
    /// `options.expiryClockSkewToleranceSeconds`, or when it has none and
    /// `options.expiryRequirement` is `.required`. A request expiring at `e` is accepted up to and
    /// including `e + tolerance`.
    ///
    /// `parse(json:options:now:)` and `parseReferencedManifest(json:for:options:now:)` call it; a
    /// driver that parses a campaign's payload once and shares the request (a simulator, a
    /// campaign service) calls it for each delivery instead. Allocation-free when it passes.
    /// - Throws: `.expired` or `.expiryMissing`, at the `exp` field's path.
    public static func checkExpiry(of request: PreStageRequest, now: Instant, options: PayloadOptions) throws(PayloadRejection) {
        guard let expiresAt = request.expiresAt else {
            if options.expiryRequirement == .required {
                throw PayloadRejection(path: request.storage.expiryPath, reason: .expiryMissing)
            }
            return
        }
        let latest = expiresAt.advanced(bySeconds: options.expiryClockSkewToleranceSeconds)
        if now > latest {
            throw PayloadRejection(path: request.storage.expiryPath,
                                   reason: .expired(expiresAt: expiresAt, now: now, toleranceSeconds: options.expiryClockSkewToleranceSeconds))
        }
    }

    /// Checks that `manifest`, already parsed (e.g. once per campaign by a simulator), answers
    /// `reference` at `now`: same `manifest_id`, same `campaign_id` when the push names one, and
    /// not expired (`checkExpiry`). `parseReferencedManifest(json:for:options:now:)` applies the
    /// same checks to a fetched document.
    /// - Throws: `.manifestMismatch` at `$.manifest_id`, `.campaignMismatch` at `$.campaign_id`,
    ///   or an expiry rejection.
    public static func checkReferencedManifest(_ manifest: PreStageRequest, for reference: PreStageRequest, options: PayloadOptions, now: Instant) throws(PayloadRejection) {
        if manifest.format != .manifestReference || !manifest.manifestID.utf8.elementsEqual(reference.manifestID.utf8) {
            throw PayloadRejection(path: "$.manifest_id", reason: .manifestMismatch(expected: reference.manifestID, found: manifest.manifestID))
        }
        try checkCampaign(manifest, for: reference, path: "$.campaign_id")
        try checkExpiry(of: manifest, now: now, options: options)
    }

    /// A push that names a campaign accepts only a manifest signed for that campaign.
    static func checkCampaign(_ manifest: PreStageRequest, for reference: PreStageRequest, path: String) throws(PayloadRejection) {
        guard let expected = reference.campaignID else { return }
        guard let found = manifest.campaignID, found.utf8.elementsEqual(expected.utf8) else {
            throw PayloadRejection(path: path, reason: .campaignMismatch(expected: expected, found: manifest.campaignID))
        }
    }
}
