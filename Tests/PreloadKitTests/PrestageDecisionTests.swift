import XCTest
@testable import PreloadKit

/// The signed open-probability hint, each decision kind's table, the budget controller and the
/// session applying the decision.
final class PrestageDecisionTests: XCTestCase {
    /// Lines `v1, silent, promo_1, "", url, "", exp=1767225600, campaign_id=spring-2026, open_pct=35`;
    /// the signature computed independently with Python's `hmac` from the documented canonical form.
    static func hinted(pct: String = "35", signature: String = "v1=27d113c7c884036c776680b0e56f765db59a33b1926266511aaac2d2a6eb6d94") -> [UInt8] {
        Array(#"""
        {"aps":{"content-available":1},"pre_stage_url":"https://cdn.example.com/promo/a.jpg","pre_stage_id":"promo_1",
         "exp":1767225600,"campaign_id":"spring-2026","open_pct":\#(pct),"signature":"\#(signature)"}
        """#.utf8)
    }

    func testHintIsParsedAndCoveredBySignature() throws {
        let r = try PayloadParser.parse(json: Self.hinted(), options: Fixtures.options())
        XCTAssertEqual(r.signature, .verified)
        XCTAssertEqual(r.openProbabilityHint, 0.35)
        // Raising the hint breaks the signature.
        XCTAssertThrowsError(try PayloadParser.parse(json: Self.hinted(pct: "90"), options: Fixtures.options())) { error in
            XCTAssertEqual(error as? PayloadRejection, PayloadRejection(path: "$.signature", reason: .signatureMismatch))
        }
        // Out of range, with its path.
        XCTAssertThrowsError(try PayloadParser.parse(json: Self.hinted(pct: "101"), options: Fixtures.options(.none))) { error in
            XCTAssertEqual((error as? PayloadRejection)?.path, "$.open_pct")
        }
        // Stripping it breaks the signature too; without one, no hint.
        let stripped = try PayloadParser.parse(json: Array(String(decoding: Self.hinted(), as: UTF8.self)
            .replacingOccurrences(of: #""open_pct":35,"#, with: "").utf8), options: Fixtures.options(.none))
        XCTAssertNil(stripped.openProbabilityHint)
        XCTAssertThrowsError(try PayloadParser.parse(json: Array(String(decoding: Self.hinted(), as: UTF8.self)
            .replacingOccurrences(of: #""open_pct":35,"#, with: "").utf8), options: Fixtures.options()))
        let canonical = String(decoding: try PayloadParser.canonicalForm(of: try PayloadValue.parseJSON(Self.hinted()), options: Fixtures.options()), as: UTF8.self)
        XCTAssertTrue(canonical.hasSuffix("campaign_id=spring-2026\nopen_pct=35\n"), canonical)
    }

    // MARK: - Decision tables

    static func context(_ network: NetworkClass = .cellular4G, _ inputs: DeviceInputs = .unknown) -> DeviceContext {
        DeviceContext(handlerKind: .iOSServiceExtension, network: network, freeStorageBytes: 10_000_000_000, receiptJitterUniform: 0, inputs: inputs)
    }

    func decide(_ kind: PrestageDecisionKind, bytes: Int64 = 100_000, hint: Double?, _ context: DeviceContext = context(),
                ledger: inout PrestageLedger, now: Instant = Instant(microseconds: 43_200_000_000)) -> PrestageVerdict {
        PrestageDecision.decide(kind, bytes: bytes, hint: hint, context: context, firstFetch: true, ledger: &ledger, now: now)
    }

    func testCriticalOnlyAndNeverIgnoreEveryInput() {
        var ledger = PrestageLedger.empty
        let drained = Self.context(.cellular4G, DeviceInputs(batteryLevel: 0.01, isCharging: false, lowPowerMode: true, cellularBytesUsedToday: 1 << 40))
        for ctx in [Self.context(), drained] {
            for hint in [nil, 0.0, 1.0] {
                XCTAssertEqual(decide(.criticalOnly, hint: hint, ctx, ledger: &ledger), .prestage)
                XCTAssertEqual(decide(.never, hint: hint, ctx, ledger: &ledger), .skip(.never))
                XCTAssertEqual(PrestageDecision.decideManifest(.criticalOnly, hint: hint, context: ctx), .prestage)
                XCTAssertEqual(PrestageDecision.decideManifest(.never, hint: hint, context: ctx), .skip(.never))
            }
        }
        XCTAssertEqual(ledger, .empty, "neither kind touches the ledger")
    }

    func testThresholdTable() {
        var ledger = PrestageLedger.empty
        let t = PrestageDecisionKind.threshold(openProbabilityMin: 0.3)
        XCTAssertEqual(decide(t, hint: nil, ledger: &ledger), .prestage, "no hint: as criticalOnly")
        XCTAssertEqual(decide(t, hint: 0.29, ledger: &ledger), .skip(.belowThreshold(hint: 0.29, min: 0.3)))
        XCTAssertEqual(decide(t, hint: 0.3, ledger: &ledger), .prestage, "at the threshold")
        XCTAssertEqual(decide(t, hint: 0.9, Self.context(.wifi, DeviceInputs(lowPowerMode: true)), ledger: &ledger), .skip(.lowPowerMode))
        XCTAssertEqual(decide(t, hint: 0.9, Self.context(.wifi, DeviceInputs(batteryLevel: 0.1)), ledger: &ledger),
                       .skip(.lowBattery(level: 0.1, floor: 0.2)))
        XCTAssertEqual(decide(t, hint: 0.9, Self.context(.wifi, DeviceInputs(batteryLevel: 0.1, isCharging: true, lowPowerMode: true)), ledger: &ledger),
                       .prestage, "charging lifts the power rows")
        XCTAssertEqual(decide(t, hint: 0.9, Self.context(.wifi, DeviceInputs(batteryLevel: 0.2)), ledger: &ledger), .prestage, "at the floor")
        XCTAssertEqual(PrestageDecision.decideManifest(t, hint: 0.1, context: Self.context()), .skip(.belowThreshold(hint: 0.1, min: 0.3)))
        XCTAssertEqual(PrestageDecision.decideManifest(t, hint: nil, context: Self.context()), .prestage)
        XCTAssertEqual(ledger, .empty)
    }

    /// Every row of `budgeted`, with the arithmetic of the benefit and the cost spelled out.
    func testBudgetedTable() {
        var b = BudgetedPolicy()
        b.controllerGain = 0 // weights stay at their initial values: rows checked by hand
        b.dailyDataBytes = 1_000_000
        b.dailyEnergyJoules = 100
        b.cellularDayCapBytes = 2_000_000
        let kind = PrestageDecisionKind.budgeted(b)
        // A day with many decisions so far: no budget is slack (100 000 decisions still expected).
        var ledger = PrestageLedger(dayIndex: 0, decisionsToday: 99_999)

        // LTE, 100 KB, hint 0.9: benefit 0.9 × (0.36 + 0.1 × 8 / 10) = 0.396 s; cost 0.5 × 0.1 +
        // 0.02 × (10.9 + 1.38 × 0.1) = 0.05 + 0.22076 = 0.27076 s → prestage, charged.
        XCTAssertEqual(decide(kind, hint: 0.9, ledger: &ledger), .prestage)
        XCTAssertEqual(ledger.spentDataBytes, 100_000)
        XCTAssertEqual(ledger.spentEnergyJoules, 10.9 + 0.138, accuracy: 1e-9)
        XCTAssertEqual(ledger.dayIndex, 0)
        // Hint 0.5: benefit 0.22 s < 0.27076 s.
        guard case .skip(.notWorthCost(let benefit, let cost)) = decide(kind, hint: 0.5, ledger: &ledger) else { return XCTFail() }
        XCTAssertEqual(benefit, 0.22, accuracy: 1e-12)
        XCTAssertEqual(cost, 0.27076, accuracy: 1e-12)
        // No hint: the assumed 0.2.
        guard case .skip(.notWorthCost(let b2, _)) = decide(kind, hint: nil, ledger: &ledger) else { return XCTFail() }
        XCTAssertEqual(b2, 0.2 * 0.44, accuracy: 1e-12)
        // Charging: no energy cost; Wi-Fi: no data cost. Wi-Fi 100 KB, hint 0.5: benefit 0.5 × (0.05 + 0.04) = 0.045;
        // cost 0.02 × (0.1 + 0.016) = 0.00232 → prestage; no data charged.
        let before = ledger.spentDataBytes
        XCTAssertEqual(decide(kind, hint: 0.5, Self.context(.wifi), ledger: &ledger), .prestage)
        XCTAssertEqual(ledger.spentDataBytes, before)
        XCTAssertEqual(decide(kind, hint: 0.5, Self.context(.cellular4G, DeviceInputs(isCharging: true)), ledger: &ledger), .prestage,
                       "charging: cost 0.05 s of data only, benefit 0.22 s")
        // Power rows.
        XCTAssertEqual(decide(kind, hint: 1, Self.context(.wifi, DeviceInputs(lowPowerMode: true)), ledger: &ledger), .skip(.lowPowerMode))
        XCTAssertEqual(decide(kind, hint: 1, Self.context(.wifi, DeviceInputs(batteryLevel: 0.05)), ledger: &ledger),
                       .skip(.lowBattery(level: 0.05, floor: 0.2)))
        // The device's cellular cap (cellular only).
        XCTAssertEqual(decide(kind, hint: 1, Self.context(.cellular4G, DeviceInputs(cellularBytesUsedToday: 2_000_000)), ledger: &ledger),
                       .skip(.cellularDayCapReached(usedBytes: 2_000_000, capBytes: 2_000_000)))
        XCTAssertEqual(decide(kind, hint: 1, Self.context(.wifi, DeviceInputs(cellularBytesUsedToday: 2_000_000)), ledger: &ledger), .prestage)
        // Data budget: 200 KB spent; 800 KB fits exactly, one byte more does not.
        XCTAssertEqual(ledger.spentDataBytes, 200_000)
        var probe = ledger
        XCTAssertEqual(decide(kind, bytes: 800_001, hint: 1, ledger: &probe), .skip(.dataBudgetExhausted(spentBytes: 200_000, budgetBytes: 1_000_000)))
        // Energy budget: spent ≈ 22.2 J of 100; a 60 MB Wi-Fi fetch costs 0.1 + 9.6 = 9.7 J, fits;
        // with 95 J spent it does not (unless charging).
        probe = ledger
        probe.spentEnergyJoules = 95
        XCTAssertEqual(decide(kind, bytes: 60_000_000, hint: 1, Self.context(.wifi), ledger: &probe),
                       .skip(.energyBudgetExhausted(spentJoules: 95, budgetJoules: 100)))
        XCTAssertEqual(decide(kind, bytes: 60_000_000, hint: 1, Self.context(.wifi, DeviceInputs(isCharging: true)), ledger: &probe), .prestage)
        XCTAssertEqual(probe.spentEnergyJoules, 95, "charging spends no battery")
        // A new day resets the spending, keeps the weights.
        probe.dataWeightSecondsPerMegabyte = 3
        _ = decide(kind, hint: 0, ledger: &probe, now: Instant(microseconds: 86_400_000_000 + 1))
        XCTAssertEqual(probe.dayIndex, 1)
        XCTAssertEqual(probe.spentDataBytes, 0)
        XCTAssertEqual(probe.spentEnergyJoules, 0)
        XCTAssertEqual(probe.dataWeightSecondsPerMegabyte, 3)
        // Slack: with few decisions today, what is left covers every one still expected, so the
        // costs drop out: at noon after 1 decision, 1 more is expected; 1 MB − 0.2 MB − 0.1 MB ≥ 0.1 MB.
        probe = PrestageLedger(dayIndex: 0, spentDataBytes: 200_000, spentEnergyJoules: 0, dataWeightSecondsPerMegabyte: 1e6,
                               energyWeightSecondsPerJoule: 1e6, decisionsToday: 0)
        XCTAssertEqual(decide(kind, hint: 0.01, ledger: &probe), .prestage, "cost 0 < benefit 0.0044 s")
        XCTAssertEqual(probe.decisionsToday, 1)
        // With 0.85 MB spent, 1 − 0.85 − 0.1 = 0.05 MB would be left, less than the 0.1 MB the decision
        // still expected needs: not slack, so the (huge) data weight applies.
        probe = PrestageLedger(dayIndex: 0, spentDataBytes: 850_000, spentEnergyJoules: 0, dataWeightSecondsPerMegabyte: 1e6,
                               energyWeightSecondsPerJoule: 1e-6, decisionsToday: 0)
        guard case .skip(.notWorthCost) = decide(kind, hint: 0.01, ledger: &probe) else {
            return XCTFail("0.05 MB left after the fetch < 0.1 MB for the decision still expected: weighed, and the weight is huge")
        }
        // Manifests: power rows only.
        XCTAssertEqual(PrestageDecision.decideManifest(kind, hint: 0, context: Self.context()), .prestage)
        XCTAssertEqual(PrestageDecision.decideManifest(kind, hint: 1, context: Self.context(.wifi, DeviceInputs(lowPowerMode: true))), .skip(.lowPowerMode))
    }

    /// The `budgeted` day starts at the device's local midnight (`DeviceInputs.utcOffsetSeconds`):
    /// at 23:30 UTC a device an hour ahead of UTC is 30 minutes into its next day (its spending
    /// reset, its pro-rata share 1 800 s of the goal), one an hour behind is at 22:30 of the same
    /// day; the UTC day is the one an offset of 0 sees.
    func testTheBudgetDayStartsAtTheDevicesLocalMidnight() {
        var b = BudgetedPolicy()
        b.controllerGain = 0
        let utc2330 = Instant(microseconds: 84_600_000_000)
        XCTAssertEqual(b.dayIndex(utc2330), 0)
        XCTAssertEqual(b.dayIndex(utc2330, utcOffsetSeconds: 3_600), 1)
        XCTAssertEqual(b.dayIndex(utc2330, utcOffsetSeconds: -3_600), 0)
        XCTAssertEqual(b.proRataShare(utc2330, utcOffsetSeconds: 3_600), 1_800.0 / 86_400, accuracy: 1e-12)
        XCTAssertEqual(b.proRataShare(utc2330, utcOffsetSeconds: -3_600), 81_000.0 / 86_400, accuracy: 1e-12)
        // Seen on the policy's own UTC-day offset too: the app on Unix time keeps 0 and reports its zone.
        b.dayStartOffsetMicroseconds = 3_600_000_000
        XCTAssertEqual(b.dayIndex(Instant(microseconds: 3_600_000_000 - 1), utcOffsetSeconds: 0), -1)
        XCTAssertEqual(b.dayIndex(Instant(microseconds: 1), utcOffsetSeconds: 3_600), 0)
        b.dayStartOffsetMicroseconds = 0
        // A ledger spent at 22:50 UTC: a device at UTC+1 starts afresh at 23:10 UTC, one at UTC does not.
        let kind = PrestageDecisionKind.budgeted(b)
        for (offset, resets) in [(Int32(3_600), true), (0, false)] {
            var ledger = PrestageLedger()
            let inputs = DeviceInputs(utcOffsetSeconds: offset)
            _ = decide(kind, hint: 1, Self.context(.cellular4G, inputs), ledger: &ledger, now: Instant(microseconds: 82_200_000_000))
            XCTAssertEqual(ledger.spentDataBytes, 100_000, "offset \(offset)")
            _ = decide(kind, hint: 0, Self.context(.cellular4G, inputs), ledger: &ledger, now: Instant(microseconds: 83_400_000_000))
            XCTAssertEqual(ledger.spentDataBytes == 0, resets, "offset \(offset): spending after the device's midnight")
            XCTAssertEqual(ledger.decisionsToday, resets ? 1 : 2, "offset \(offset)")
        }
    }

    func testValidationNamesTheField() {
        XCTAssertThrowsError(try PrestageDecisionKind.threshold(openProbabilityMin: 1.5).validate()) { error in
            XCTAssertEqual((error as? PolicyError)?.field, "decision.openProbabilityMin")
        }
        var b = BudgetedPolicy()
        b.goalAfterDayStartSeconds = 100_000
        XCTAssertThrowsError(try PrestageDecisionKind.budgeted(b).validate()) { error in
            XCTAssertEqual((error as? PolicyError)?.field, "decision.goalAfterDayStartSeconds")
        }
        b = BudgetedPolicy()
        b.cellular4G.throughputMbps = 0
        var policy = Fixtures.policy()
        policy.decision = .budgeted(b)
        XCTAssertThrowsError(try policy.validate()) { error in
            XCTAssertEqual((error as? PolicyError)?.field, "decision.costs.cellular4G.throughputMbps")
            XCTAssertEqual((error as? PolicyError)?.knob, .decision)
        }
    }

    func testExpMatchesKnownValues() {
        for (x, e) in [(0.0, 1.0), (1.0, 2.718281828459045), (-1.0, 0.36787944117144233), (0.5, 1.6487212707001282), (-0.5, 0.6065306597126334), (10.0, 22026.465794806718)] {
            XCTAssertEqual(x.exp, e, accuracy: e * 1e-14, "e^\(x)")
        }
    }

    // MARK: - Controller

    /// A day of pushes, one every `interval` on LTE with uniform hints: spend at the day's end.
    func day(pushes: Int, bytes: Int64, budget: Int64, seed: UInt64, energy: Double = 1e8) -> (spent: Int64, ledger: PrestageLedger) {
        var b = BudgetedPolicy()
        b.dailyDataBytes = budget
        b.dailyEnergyJoules = energy
        let kind = PrestageDecisionKind.budgeted(b)
        var rng = CoreRNG(seed: seed)
        var ledger = PrestageLedger.empty
        let interval = BudgetedPolicy.dayMicroseconds / Int64(pushes)
        for i in 0..<pushes {
            let now = Instant(microseconds: Int64(i) * interval + interval / 2)
            _ = PrestageDecision.decide(kind, bytes: bytes, hint: rng.unit(), context: Self.context(), firstFetch: true, ledger: &ledger, now: now)
        }
        return (ledger.spentDataBytes, ledger)
    }

    /// Demand (288 × 100 KB = 28.8 MB) far above the 5 MB budget: the controller ends the day
    /// within the target's ±5 % of the budget on every seed; the hard cap keeps it at or under.
    func testControllerSpendsTheDailyBudgetByTheGoal() {
        for seed in 1...10 as ClosedRange<UInt64> {
            let (spent, _) = day(pushes: 288, bytes: 100_000, budget: 5_000_000, seed: seed)
            XCTAssertLessThanOrEqual(spent, 5_000_000, "seed \(seed)")
            XCTAssertGreaterThanOrEqual(spent, 4_750_000, "seed \(seed)")
        }
        // Demand under the budget: everything worth it goes (weight falls to its floor), i.e. all.
        let (spent, _) = day(pushes: 20, bytes: 100_000, budget: 5_000_000, seed: 3)
        XCTAssertEqual(spent, 2_000_000)
    }

    /// The energy budget binds the same way when it is the tighter one (here 1 000 J ≈ 90 LTE
    /// fetches of 10.9 + 0.14 J: data 9 MB of a 50 MB budget): within ±5 % on every seed.
    func testControllerSpendsTheEnergyBudget() {
        for seed in 1...5 as ClosedRange<UInt64> {
            let (spent, ledger) = day(pushes: 288, bytes: 100_000, budget: 50_000_000, seed: seed, energy: 1_000)
            XCTAssertLessThanOrEqual(ledger.spentEnergyJoules, 1_000, "seed \(seed)")
            XCTAssertGreaterThanOrEqual(ledger.spentEnergyJoules, 950, "seed \(seed)")
            XCTAssertLessThan(spent, 50_000_000, "the data budget did not bind, seed \(seed)")
        }
    }

    /// The budget goes to the likelier opens: the mean hint of what was pre-staged is above the
    /// population's 0.5.
    func testControllerPrefersHighHints() {
        var b = BudgetedPolicy()
        b.dailyDataBytes = 5_000_000
        b.dailyEnergyJoules = 1e8
        var rng = CoreRNG(seed: 9)
        var ledger = PrestageLedger.empty
        var staged: [Double] = []
        for i in 0..<288 {
            let hint = rng.unit()
            let now = Instant(microseconds: Int64(i) * 300_000_000 + 150_000_000)
            if PrestageDecision.decide(.budgeted(b), bytes: 100_000, hint: hint, context: Self.context(), firstFetch: true, ledger: &ledger, now: now) == .prestage {
                staged.append(hint)
            }
        }
        XCTAssertTrue((49...50).contains(staged.count), "\(staged.count) of the 50 the budget holds")
        XCTAssertGreaterThan(staged.reduce(0, +) / Double(staged.count), 0.6)
    }

    // MARK: - Session

    static let article = """
        {"aps":{"alert":"x","mutable-content":1},"cdn_preload":{"manifest_id":"m1","open_pct":40,
         "assets":[{"url":"https://cdn.example.com/a.jpg","type":"image","priority":"critical","bytes":100000}]}}
        """

    func session(_ kind: PrestageDecisionKind, _ context: DeviceContext) throws -> (actions: [Action], session: PreloadSession) {
        var policy = Fixtures.policy(.none)
        policy.decision = kind
        var h = try Harness(policy: policy)
        let r = try Sessions.request(Self.article, .none)
        XCTAssertEqual(r.openProbabilityHint, 0.4)
        let actions = try h.feed(.pushReceived(r, context), at: ms(1_000))
        return (actions, h.session)
    }

    func testSessionAppliesTheDecision() throws {
        let wifi = Self.context(.wifi)
        let plain = try session(.criticalOnly, wifi)
        XCTAssertEqual(Sessions.starts(plain.actions).count, 1)
        XCTAssertEqual(plain.session.decisionSkippedCount, 0)

        let never = try session(.never, wifi)
        XCTAssertEqual(Sessions.starts(never.actions).count, 0)
        XCTAssertTrue(never.actions.contains(.log(.assetSkipped(assetIndex: 0, .decision(.never)))))
        XCTAssertEqual(Sessions.deliveries(never.actions).count, 1, "delivered at once, nothing to wait for")
        XCTAssertEqual(never.session.decisionSkippedCount, 1)

        XCTAssertEqual(Sessions.starts(try session(.threshold(openProbabilityMin: 0.4), wifi).actions).count, 1)
        let above = try session(.threshold(openProbabilityMin: 0.41), wifi)
        XCTAssertTrue(above.actions.contains(.log(.assetSkipped(assetIndex: 0, .decision(.belowThreshold(hint: 0.4, min: 0.41))))))

        var b = BudgetedPolicy()
        b.controllerGain = 0
        let budgeted = try session(.budgeted(b), Self.context(.cellular4G))
        // Benefit 0.4 × 0.44 = 0.176 s < cost 0.27076 s: skipped; the ledger rolled to day 0.
        XCTAssertEqual(Sessions.starts(budgeted.actions).count, 0)
        XCTAssertEqual(budgeted.session.ledger.dayIndex, 0)
        var wifiLedger = try session(.budgeted(b), wifi)
        XCTAssertEqual(Sessions.starts(wifiLedger.actions).count, 1)
        XCTAssertEqual(wifiLedger.session.ledger.spentEnergyJoules, 0.1 + 0.016, accuracy: 1e-12)
        // The session passes the context's ledger on: with 1 MB spent of a 1 MB budget, nothing goes on cellular.
        b.dailyDataBytes = 1_000_000
        var full = Self.context(.cellular4G)
        full.ledger = PrestageLedger(dayIndex: 0, spentDataBytes: 1_000_000, spentEnergyJoules: 0, dataWeightSecondsPerMegabyte: 1e-6, energyWeightSecondsPerJoule: 1e-6)
        wifiLedger = try session(.budgeted(b), full)
        XCTAssertTrue(wifiLedger.actions.contains(.log(.assetSkipped(assetIndex: 0, .decision(.dataBudgetExhausted(spentBytes: 1_000_000, budgetBytes: 1_000_000))))))
    }

    /// Refused by a kind that reads them; `criticalOnly` reads no inputs and does not check them.
    func testInvalidInputsAreRefused() throws {
        var policy = Fixtures.policy(.none)
        policy.decision = .threshold(openProbabilityMin: 0.3)
        var h = try Harness(policy: policy)
        let r = try Sessions.request(Self.article, .none)
        XCTAssertThrowsError(try h.feed(.pushReceived(r, Self.context(.wifi, DeviceInputs(batteryLevel: 1.5))), at: ms(0))) { error in
            XCTAssertEqual(error as? SessionError, .invalidContext(field: "inputs.batteryLevel", value: "1.5", expected: "a level in [0, 1] or nil"))
        }
        XCTAssertThrowsError(try h.feed(.pushReceived(r, Self.context(.wifi, DeviceInputs(cellularBytesUsedToday: -1))), at: ms(0)))
        XCTAssertThrowsError(try h.feed(.pushReceived(r, Self.context(.wifi, DeviceInputs(utcOffsetSeconds: 64_801))), at: ms(0))) { error in
            XCTAssertEqual(error as? SessionError, .invalidContext(field: "inputs.utcOffsetSeconds", value: "64801", expected: "-64800...64800"))
        }
        XCTAssertThrowsError(try h.feed(.pushReceived(r, Self.context(.wifi, DeviceInputs(utcOffsetSeconds: .min))), at: ms(0)))
        var plain = try Harness(policy: Fixtures.policy(.none))
        XCTAssertNoThrow(try plain.feed(.pushReceived(r, Self.context(.wifi, DeviceInputs(batteryLevel: 1.5))), at: ms(0)))
    }
}
