// HLS playlists of variants (emitted only when an asset has `variantsKbps`).

extension MetricTable {
    /// The rows of the HLS metrics.
    static func hlsSpec(_ id: MetricID) -> MetricSpec {
        let n = id.rawValue
        switch id {
        case .hlsMediaPlaylistsStored: return MetricSpec(n, .count, .none, "HLS variants chosen (media playlists pre-staged)")
        case .hlsSegmentsStored: return MetricSpec(n, .count, .none, "HLS segments pre-staged")
        case .hlsInitSectionsStored: return MetricSpec(n, .count, .none, "HLS initialization sections pre-staged")
        case .hlsSegmentsPerVariantChosen:
            return MetricSpec(n, .count, .higher, "HLS segments pre-staged per variant chosen",
                              ratio: ("media segments pre-staged (initialization sections not counted)",
                                      "variants' media playlists pre-staged (one per pre-stage that chose a variant)"))
        case .hlsChosenBitsPerSecondMean:
            return MetricSpec(n, .bitsPerSecond, .none, "HLS variant chosen, mean BANDWIDTH",
                              ratio: ("Σ the chosen variants' BANDWIDTH", "variants' media playlists pre-staged"))
        case .hlsTopVariantShare:
            return MetricSpec(n, .ratio, .none, "HLS pre-stages at the highest variant, share",
                              ratio: ("variants chosen that are the master playlist's highest BANDWIDTH", "variants' media playlists pre-staged"))
        default:
            return MetricSpec(n, .count, .none, n)
        }
    }
}
