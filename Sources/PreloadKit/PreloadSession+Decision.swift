/// The decision kind's part of the gates (`PrestageDecision`), applied after the static gates of
/// an asset or a referenced manifest; the skips counted in `decisionSkippedCount`.
extension PreloadSession {
    /// The decision for an asset fetched with `byteLimit` (its declared size, or the cap). Called
    /// only when `decides` (the gates test the flag: `criticalOnly` costs that test alone).
    mutating func decide(bytes byteLimit: Int64) -> PrestageVerdict {
        guard let context else { return .prestage }
        let verdict = PrestageDecision.decide(policy.decision, bytes: byteLimit, hint: openHint, context: context,
                                              firstFetch: decisionPassedCount == 0, ledger: &decisionLedger, now: lastNow)
        if case .prestage = verdict { decisionPassedCount += 1 } else { decisionSkippedCount += 1 }
        return verdict
    }

    /// The decision for a referenced manifest (only when `decides`).
    mutating func decideManifest() -> PrestageVerdict {
        guard let context else { return .prestage }
        let verdict = PrestageDecision.decideManifest(policy.decision, hint: openHint, context: context)
        if case .skip = verdict { decisionSkippedCount += 1 }
        return verdict
    }
}
