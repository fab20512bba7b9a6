import XCTest
@testable import SimKernel

/// The reference a `GenerationalPool` must match exactly: a stack of released indices (the last
/// released is handed out first), else the next new index while below the limit; a generation
/// per index, bumped at release, and an index released at the last generation is retired.
private struct ReferencePool {
    var freeStack: [UInt32] = []
    var generations: [UInt32] = []
    var inUse = Set<UInt32>()
    var retired = Set<UInt32>()
    let slotsMax: Int
    let startingGeneration: UInt32

    mutating func allocate() -> PoolHandle? {
        let s: UInt32
        if let last = freeStack.popLast() {
            s = last
        } else {
            guard generations.count < slotsMax else { return nil }
            s = UInt32(generations.count)
            generations.append(startingGeneration)
        }
        inUse.insert(s)
        return PoolHandle(index: s, generation: generations[Int(s)])
    }

    mutating func release(_ s: UInt32) {
        inUse.remove(s)
        if generations[Int(s)] == UInt32.max {
            retired.insert(s)
        } else {
            generations[Int(s)] += 1
            freeStack.append(s)
        }
    }

    func isLive(_ h: PoolHandle) -> Bool {
        inUse.contains(h.index) && generations[Int(h.index)] == h.generation
    }
}

final class GenerationalPoolTests: XCTestCase {
    /// Whether pool and reference agree on everything observable; records one failure naming
    /// `trace` (which starts with the seed in the seeded tests) and returns false when not.
    @discardableResult
    private func agree(_ pool: GenerationalPool, _ ref: ReferencePool, handles: [PoolHandle], _ trace: String,
                       file: StaticString = #filePath, line: UInt = #line) -> Bool {
        var problems: [String] = []
        if pool.inUse != ref.inUse.count { problems.append("inUse \(pool.inUse) != \(ref.inUse.count)") }
        if pool.slotCount != ref.generations.count { problems.append("slotCount \(pool.slotCount) != \(ref.generations.count)") }
        if pool.freeIndices != Array(ref.freeStack.reversed()) { problems.append("freeIndices \(pool.freeIndices) != \(Array(ref.freeStack.reversed()))") }
        for s in 0..<UInt32(ref.generations.count) {
            if pool.generation(s) != ref.generations[Int(s)] { problems.append("generation of \(s)") }
            if pool.isFree(s) != ref.freeStack.contains(s) { problems.append("isFree(\(s))") }
            if pool.isInUse(s) != ref.inUse.contains(s) { problems.append("isInUse(\(s))") }
            if pool.isRetired(s) != ref.retired.contains(s) { problems.append("isRetired(\(s))") }
        }
        for h in handles where pool.isLive(h) != ref.isLive(h) {
            problems.append("isLive(\(h.index)@\(h.generation)) \(pool.isLive(h))")
        }
        #if DEBUG
        if !pool.checkInvariants() { problems.append("checkInvariants") }
        #endif
        guard problems.isEmpty else {
            XCTFail("\(trace): " + problems.joined(separator: "; "), file: file, line: line)
            return false
        }
        return true
    }

    /// Every sequence of up to 8 operations (allocate, or release any index in use) on a pool of
    /// at most 3 slots hands out the same handles as the reference: once with slots starting at
    /// generation 0, once one generation before the last, so that slots retire.
    func testEverySequenceUpToEightOperationsMatchesReference() {
        for start in [0, UInt32.max - 1] {
            var sequences = 0
            var retirements = 0
            func explore(_ pool: GenerationalPool, _ ref: ReferencePool, handles: [PoolHandle], depth: Int, trace: String) {
                sequences += 1
                retirements += ref.retired.count
                guard depth < 8 else { return }
                var p = pool, r = ref
                let got = p.allocate(), want = r.allocate()
                XCTAssertEqual(got, want, "start \(start): allocate after \(trace)")
                let grown = handles + (got.map { [$0] } ?? [])
                guard agree(p, r, handles: grown, "start \(start):" + trace + " A") else { return }
                explore(p, r, handles: grown, depth: depth + 1, trace: trace + " A")
                for s in ref.inUse.sorted() {
                    var p = pool, r = ref
                    p.release(s)
                    r.release(s)
                    guard agree(p, r, handles: handles, "start \(start):" + trace + " R\(s)") else { return }
                    explore(p, r, handles: handles, depth: depth + 1, trace: trace + " R\(s)")
                }
            }
            explore(GenerationalPool(slotsMax: 3, startingGeneration: start),
                    ReferencePool(slotsMax: 3, startingGeneration: start), handles: [], depth: 0, trace: "")
            if start == 0 {
                // Without retirement the tree's size depends only on how many slots are in use (an
                // allocate at the limit changes nothing; a release may pick any slot in use).
                func treeSize(depth: Int, inUse: Int) -> Int {
                    guard depth < 8 else { return 1 }
                    return 1 + treeSize(depth: depth + 1, inUse: min(inUse + 1, 3)) + inUse * treeSize(depth: depth + 1, inUse: inUse - 1)
                }
                XCTAssertEqual(sequences, treeSize(depth: 0, inUse: 0), "the whole tree was walked")
                XCTAssertEqual(retirements, 0)
            } else {
                XCTAssertGreaterThan(retirements, 0, "the walk never retired a slot")
            }
        }
    }

    /// Long seeded runs (many seeds) that alternate between growth and shrinking: identical
    /// handles and order, stale handles are never live, nil exactly at `slotsMax`, and slots
    /// starting near the last generation are retired, never reused.
    func testSeededRunsMatchReference() {
        for seed: UInt64 in 1...60 {
            var rng = SplitMix64(seed: seed)
            let slotsMax = Int(1 + rng.below(48))
            // A third of the seeds start near the last generation so that retirement happens.
            let start: UInt32 = seed % 3 == 0 ? UInt32.max - UInt32(rng.below(4)) : UInt32(rng.below(1_000))
            var pool = GenerationalPool(slotsMax: slotsMax, startingGeneration: start)
            var ref = ReferencePool(slotsMax: slotsMax, startingGeneration: start)
            var held: [PoolHandle] = []
            var stale: [PoolHandle] = []
            var limitHits = 0
            var failed = false
            for step in 0..<4_000 where !failed {
                let allocateBias: UInt64 = (step / 300) % 2 == 0 ? 70 : 30
                if held.isEmpty || rng.below(100) < allocateBias {
                    let got = pool.allocate(), want = ref.allocate()
                    if got != want {
                        XCTFail("seed \(seed) step \(step): allocate \(String(describing: got)) != \(String(describing: want))")
                        failed = true
                    }
                    if let h = got {
                        held.append(h)
                        if !pool.isLive(h) { XCTFail("seed \(seed) step \(step): new handle not live"); failed = true }
                    } else {
                        limitHits += 1
                        if pool.slotCount != slotsMax || !pool.freeIndices.isEmpty {
                            XCTFail("seed \(seed) step \(step): nil below slotsMax"); failed = true
                        }
                    }
                } else {
                    let h = held.remove(at: Int(rng.below(UInt64(held.count))))
                    pool.release(h.index)
                    ref.release(h.index)
                    stale.append(h)
                    if stale.count > 64 { stale.removeFirst() }
                }
                if pool.slotCount > slotsMax { XCTFail("seed \(seed) step \(step): table beyond slotsMax"); failed = true }
                for h in stale where pool.isLive(h) {
                    XCTFail("seed \(seed) step \(step): stale handle \(h.index)@\(h.generation) is live"); failed = true
                    break
                }
                if step % 97 == 0 && !agree(pool, ref, handles: held + stale, "seed \(seed) step \(step)") { failed = true }
            }
            agree(pool, ref, handles: held + stale, "seed \(seed) end")
            XCTAssertGreaterThan(limitHits, 0, "seed \(seed): the run never reached slotsMax")
            if start >= UInt32.max - 3 {
                XCTAssertFalse(ref.retired.isEmpty, "seed \(seed): nothing retired")
            }
        }
    }

    /// A slot released at the last generation is never handed out again; the pool then grows,
    /// and at `slotsMax` with every slot retired it hands out nothing.
    func testRetiredSlotIsNeverReused() {
        var pool = GenerationalPool(slotsMax: 2, startingGeneration: UInt32.max)
        let a = pool.allocate()!
        XCTAssertEqual(a, PoolHandle(index: 0, generation: .max))
        pool.release(a.index)
        XCTAssertFalse(pool.isLive(a))
        XCTAssertFalse(pool.isFree(0))
        XCTAssertTrue(pool.isRetired(0))
        XCTAssertEqual(pool.generation(0), .max, "a retired slot keeps its last generation")
        let b = pool.allocate()!
        XCTAssertEqual(b.index, 1, "the retired slot is skipped")
        pool.release(b.index)
        XCTAssertNil(pool.allocate(), "both slots retired at slotsMax 2")
        XCTAssertEqual(pool.inUse, 0)
        XCTAssertEqual(pool.freeIndices, [])
    }

    /// Generations count releases, and a handle is live only for its own occupancy.
    func testGenerationBumpsOnRelease() {
        var pool = GenerationalPool(slotsMax: 4)
        let first = pool.allocate()!
        XCTAssertEqual(first, PoolHandle(index: 0, generation: 0))
        pool.release(0)
        XCTAssertEqual(pool.generation(0), 1)
        let second = pool.allocate()!
        XCTAssertEqual(second, PoolHandle(index: 0, generation: 1), "the released index comes back first")
        XCTAssertFalse(pool.isLive(first))
        XCTAssertTrue(pool.isLive(second))
        XCTAssertFalse(pool.isLive(PoolHandle(index: 3, generation: 0)), "an index never created is not live")
    }

    func testEmptyLimitHandsOutNothing() {
        var pool = GenerationalPool(slotsMax: 0)
        XCTAssertNil(pool.allocate())
        XCTAssertEqual(pool.slotCount, 0)
    }
}
