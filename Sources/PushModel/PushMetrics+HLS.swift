// What pre-stage sessions stored of HLS playlists of variants (`variantsKbps` assets): the
// variant PreloadKit chose (its media playlist stored) and the segments pre-staged after it.
// Emitted as `hls.*` only when some asset is such a playlist.

/// The counts behind the `hls.*` metrics.
struct HLSTally: Sendable, Equatable {
    /// Variants' media playlists stored: one per pre-stage that chose a variant.
    var mediaPlaylists: UInt64 = 0
    /// Of those, at the master playlist's highest variant.
    var topVariant: UInt64 = 0
    /// Σ the chosen variants' `BANDWIDTH`, kbit/s.
    var kbpsSum: UInt64 = 0
    /// Media segments stored (initialization sections not counted).
    var segments: UInt64 = 0
    /// Initialization sections stored.
    var initSections: UInt64 = 0

    /// Counts a stored entry that is `part` of an HLS playlist.
    @inline(__always)
    mutating func noteStored(_ part: HLSObjectPart) {
        switch part.role {
        case .mediaPlaylist:
            mediaPlaylists += 1
            kbpsSum += UInt64(max(0, part.kbps))
            if part.topVariant { topVariant += 1 }
        case .initSection: initSections += 1
        case .segment: segments += 1
        }
    }
}

extension PushMetrics {
    /// The `hls.*` metrics (only with an HLS playlist of variants).
    func appendHLSMetrics(to m: inout [Metric]) {
        guard let h = hls else { return }
        m.append(Metric(MetricID.hlsMediaPlaylistsStored.spec, value: Double(h.mediaPlaylists)))
        m.append(Metric(MetricID.hlsSegmentsStored.spec, value: Double(h.segments)))
        m.append(Metric(MetricID.hlsInitSectionsStored.spec, value: Double(h.initSections)))
        guard h.mediaPlaylists > 0 else { return }
        let n = Double(h.mediaPlaylists)
        m.append(Metric(MetricID.hlsSegmentsPerVariantChosen.spec, value: Double(h.segments) / n))
        m.append(Metric(MetricID.hlsChosenBitsPerSecondMean.spec, value: Double(h.kbpsSum) * 1_000 / n))
        m.append(Metric(MetricID.hlsTopVariantShare.spec, value: Double(h.topVariant) / n))
    }
}
