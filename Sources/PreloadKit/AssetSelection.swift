// Which critical assets a push selects: one rule, used by `PreloadSession` (to fetch them and to
// answer taps) and by `PreloadStore.tapAnswer` (to answer a tap without a session). And what the
// screen a tap opens needs (`PreloadStore.paintSetAnswer`): every critical asset, selected or not.

/// Receives the outcome of `SelectionRule.select`, one asset at a time, in
/// selection order. Generic (specialised, no closures), so the session's use allocates nothing.
protocol CriticalAssetSelection {
    /// Assets selected so far.
    var selectedCount: Int { get }
    /// True when an asset with store key `key` is already selected.
    func hasSelected(_ key: StoreKey) -> Bool
    /// Asset `assetIndex` (of declared `type`) is selected, resolved for the device's network to
    /// `url`, `key` and `declaredBytes`.
    mutating func selected(_ assetIndex: Int, type: AssetType, url: AssetURL, key: StoreKey, declaredBytes: Int64?)
    /// Asset `assetIndex` is not selected: `.notCritical`, `.duplicateOf`, `.overCriticalLimit` or
    /// `.oneAssetPerSilentPush`.
    mutating func skipped(_ assetIndex: Int, _ reason: SkipReason)
}

/// The policy knobs the selection rule reads, as a plain value. A session applies the rule to
/// itself while mutating itself; passing these three fields instead of the whole policy avoids a
/// copy of the policy per push, whose payload options hold reference-counted sets and keys
/// (shared between simulator threads, so each retain would be a contended atomic).
struct SelectionRule {
    let criticalAssetsMax: Int
    let eligiblePriority: AssetPriority
    let oneAssetPerSilentPush: Bool

    /// The selection rule: assets of priority `eligiblePriority` or more urgent (`critical` by
    /// default), most urgent first and in payload order within a priority, each resolved to the
    /// variant for `context.network`; an asset resolving to the key of one already selected is a
    /// duplicate; at most `criticalAssetsMax` (one for a silent push when
    /// `oneAssetPerSilentPush`). Skips are reported first for every ineligible asset (payload
    /// order), then interleaved with the selections. Depends on neither the store nor the gates,
    /// so a tap can be answered later from the request alone.
    /// - Complexity: O(p·n + n·k) for n assets, p priorities and k selected (k ≤ 16); no allocation.
    func select<S: CriticalAssetSelection>(of request: PreStageRequest, context: DeviceContext, into selection: inout S) {
        let silent = request.format == .silentPush || context.handlerKind.isSilent
        let limit = silent && oneAssetPerSilentPush ? 1 : criticalAssetsMax
        // Index loops read fields in place: iterating the assets by value would copy (retain) each
        // asset's URL strings and variants per push.
        let assets = request.assets
        for i in assets.indices where assets[i].priority > eligiblePriority {
            selection.skipped(i, .notCritical)
        }
        for raw in AssetPriority.critical.rawValue...eligiblePriority.rawValue {
            guard let priority = AssetPriority(rawValue: raw) else { continue }
            for i in assets.indices where assets[i].priority == priority {
                let resolved = AssetSpec.resolved(assets, i, for: context.network)
                if selection.hasSelected(resolved.key) {
                    let first = firstInSelectionOrder(resolved.key, of: request, network: context.network, current: i)
                    selection.skipped(i, .duplicateOf(assetIndex: first))
                } else if selection.selectedCount >= limit {
                    selection.skipped(i, limit < criticalAssetsMax ? .oneAssetPerSilentPush : .overCriticalLimit(max: criticalAssetsMax))
                } else {
                    selection.selected(i, type: assets[i].type, url: resolved.url, key: resolved.key, declaredBytes: resolved.declaredBytes)
                }
            }
        }
    }

    /// The request index of the first eligible asset resolving to `key`, in selection order: the
    /// selected one when `key` is selected (an earlier one skipped for the limit would have kept
    /// every later one out too). The scan always finds one, at the latest `current` (the asset
    /// being selected, which resolves to `key`).
    func firstInSelectionOrder(_ key: StoreKey, of request: PreStageRequest, network: NetworkClass, current: Int) -> Int {
        let assets = request.assets
        for raw in AssetPriority.critical.rawValue...eligiblePriority.rawValue {
            for i in assets.indices where assets[i].priority.rawValue == raw && AssetSpec.resolved(assets, i, for: network).key == key {
                return i
            }
        }
        return current
    }
}

extension PreloadPolicy {
    /// This policy's selection rule (`criticalAssetsMax`, `eligiblePriority`,
    /// `oneAssetPerSilentPush`).
    var selectionRule: SelectionRule {
        SelectionRule(criticalAssetsMax: criticalAssetsMax, eligiblePriority: eligiblePriority,
                      oneAssetPerSilentPush: oneAssetPerSilentPush)
    }
}

/// Collects a tap answer: each selected asset's freshness in a store.
struct TapAnswerSelection: CriticalAssetSelection {
    let store: PreloadStore
    let now: Instant
    var assets: [AssetReadiness]

    var selectedCount: Int { assets.count }

    func hasSelected(_ key: StoreKey) -> Bool {
        for a in assets where a.key == key { return true }
        return false
    }

    mutating func selected(_ assetIndex: Int, type: AssetType, url: AssetURL, key: StoreKey, declaredBytes: Int64?) {
        assets.append(AssetReadiness(key: key, freshness: store.freshness(of: key, at: now)))
    }

    mutating func skipped(_ assetIndex: Int, _ reason: SkipReason) {}
}

extension PreloadStore {
    /// The answer to a tap on `request`'s notification when no session is running (e.g. in the
    /// app process after the extension that handled the push has ended): for each critical asset
    /// the session would select for `context` under `policy` (the same selection, see
    /// `PreloadPolicy`'s `criticalAssetsMax`, `eligiblePriority`, `oneAssetPerSilentPush`),
    /// whether this store holds it fresh, stale or not at all at `now`.
    ///
    /// Pass the context the push was handled with when known: its `handlerKind` (silent pushes
    /// select one asset) and `network` (variants) decide the selection; the other fields do not
    /// matter. A manifest reference as pushed (`request.assetsKnown` false) gives
    /// `assetsKnown: false`, as a session does until the manifest arrives; pass the fetched
    /// manifest (`PayloadParser.parseReferencedManifest`) if the app has it. Pure: the store is
    /// not changed (no LRU update).
    /// - Complexity: O(n·(p + k) + k·e) for n assets, p priorities, k selected and e entries.
    public func tapAnswer(for request: PreStageRequest, context: DeviceContext, policy: PreloadPolicy, now: Instant) -> TapAnswer {
        var assets: [AssetReadiness] = []
        assets.reserveCapacity(max(0, min(policy.criticalAssetsMax, 16)))
        let known = tapAnswer(for: request, context: context, policy: policy, now: now, into: &assets)
        return TapAnswer(assets: assets, assetsKnown: known)
    }

    /// `tapAnswer(for:context:policy:now:)` into a caller-owned buffer, for a simulator answering
    /// millions of taps: `assets` is cleared (keeping its capacity) and filled with the answer's
    /// assets; returns the answer's `assetsKnown`. Allocates nothing once `assets` has room for
    /// `policy.criticalAssetsMax` elements.
    /// - Complexity: as `tapAnswer(for:context:policy:now:)`.
    public func tapAnswer(for request: PreStageRequest, context: DeviceContext, policy: PreloadPolicy, now: Instant,
                          into assets: inout [AssetReadiness]) -> Bool {
        assets.removeAll(keepingCapacity: true)
        guard request.assetsKnown else { return false }
        var selection = TapAnswerSelection(store: self, now: now, assets: [])
        swap(&selection.assets, &assets)
        policy.selectionRule.select(of: request, context: context, into: &selection)
        swap(&selection.assets, &assets)
        return true
    }
}

extension PreloadStore {
    /// The readiness of the app screen's paint set for `request` on `network`: every asset of
    /// priority `critical`, in payload order, resolved for `network` by the variant rule
    /// (`AssetSpec.resolved(for:)`; an asset resolving to the key of one before it counts once),
    /// each with this store's freshness at `now`. This is what the screen opened by a tap needs,
    /// which is deliberately not the pre-stage selection `tapAnswer` reports: `criticalAssetsMax`
    /// and the one-asset limit of silent pushes decide what a session pre-stages, yet an asset
    /// they left out is still needed on screen (the app fetches it in the foreground). Returns
    /// false, with no assets, while `request` only references its manifest
    /// (`request.assetsKnown` false). Pure: the store is not changed (an app reading the assets
    /// may `touch` them).
    /// - Complexity: O(n·k + k·e) for n assets, k critical ones and e entries; no allocation once
    ///   `assets` has room for the critical assets.
    public func paintSetAnswer(for request: PreStageRequest, network: NetworkClass, now: Instant,
                               into assets: inout [AssetReadiness]) -> Bool {
        assets.removeAll(keepingCapacity: true)
        guard request.assetsKnown else { return false }
        let all = request.assets
        for i in all.indices where all[i].priority == .critical {
            let key = all[i].resolved(for: network).key
            if !assets.contains(where: { $0.key == key }) {
                assets.append(AssetReadiness(key: key, freshness: freshness(of: key, at: now)))
            }
        }
        return true
    }

    /// `paintSetAnswer(for:network:now:into:)` as a `TapAnswer` (its `paintsInstantly` tells
    /// whether the screen can paint without a fetch).
    public func paintSetAnswer(for request: PreStageRequest, network: NetworkClass, now: Instant) -> TapAnswer {
        var assets: [AssetReadiness] = []
        let known = paintSetAnswer(for: request, network: network, now: now, into: &assets)
        return TapAnswer(assets: assets, assetsKnown: known)
    }
}
