import XCTest
@testable import InfraModel

/// The reference a `SlotPool` must match exactly: a stack of released slots (the last released
/// is handed out first), else the next new slot while below the limit.
private struct ReferencePool {
    var freeStack: [Int] = []
    var slotCount = 0
    var inUse = Set<Int>()
    let slotsMax: Int

    mutating func allocate() -> Int? {
        let s: Int
        if let last = freeStack.popLast() {
            s = last
        } else {
            guard slotCount < slotsMax else { return nil }
            s = slotCount
            slotCount += 1
        }
        inUse.insert(s)
        return s
    }

    mutating func release(_ s: Int) {
        inUse.remove(s)
        freeStack.append(s)
    }
}

final class SlotPoolTests: XCTestCase {
    /// Pool and reference agree on everything observable after an operation.
    private func assertAgree(_ pool: SlotPool, _ ref: ReferencePool, _ trace: String,
                             file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(pool.inUse, ref.inUse.count, trace, file: file, line: line)
        XCTAssertEqual(pool.slotCount, ref.slotCount, trace, file: file, line: line)
        XCTAssertEqual(pool.freeSlots, Array(ref.freeStack.reversed()), trace, file: file, line: line)
        for s in 0..<ref.slotCount {
            XCTAssertEqual(pool.isFree(s), !ref.inUse.contains(s), "slot \(s) after \(trace)", file: file, line: line)
        }
        XCTAssertTrue(pool.checkInvariants(), trace, file: file, line: line)
    }

    /// Every sequence of up to 9 operations (allocate, or release any slot in use) on a pool
    /// of at most 4 slots hands out the same slots as the reference.
    func testEverySequenceUpToNineOperationsMatchesReference() {
        var sequences = 0
        func explore(_ pool: SlotPool, _ ref: ReferencePool, depth: Int, trace: String) {
            sequences += 1
            guard depth < 9 else { return }
            var p = pool, r = ref
            let got = p.allocate(), want = r.allocate()
            XCTAssertEqual(got, want, "allocate after \(trace)")
            assertAgree(p, r, trace + " A")
            explore(p, r, depth: depth + 1, trace: trace + " A")
            for s in ref.inUse.sorted() {
                var p = pool, r = ref
                p.release(s)
                r.release(s)
                assertAgree(p, r, trace + " R\(s)")
                explore(p, r, depth: depth + 1, trace: trace + " R\(s)")
            }
        }
        explore(SlotPool(slotsMax: 4), ReferencePool(slotsMax: 4), depth: 0, trace: "")
        // The whole tree was walked: its size depends only on how many slots are in use (an
        // allocate at the limit changes nothing; a release may pick any slot in use).
        func treeSize(depth: Int, inUse: Int) -> Int {
            guard depth < 9 else { return 1 }
            return 1 + treeSize(depth: depth + 1, inUse: min(inUse + 1, 4)) + inUse * treeSize(depth: depth + 1, inUse: inUse - 1)
        }
        XCTAssertEqual(sequences, treeSize(depth: 0, inUse: 0))
    }

    /// Long seeded runs with a bias that alternates between growth and shrinking, on a pool
    /// of 64 slots: identical slot order, and the limit is reported as nil.
    func testSeededLongRunsMatchReference() {
        for seed: UInt64 in [1, 2, 3, 0xDEAD_BEEF] {
            var state = seed
            func next() -> UInt64 { // SplitMix64
                state &+= 0x9E37_79B9_7F4A_7C15
                var z = state
                z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
                z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
                return z ^ (z >> 31)
            }
            var pool = SlotPool(slotsMax: 64), ref = ReferencePool(slotsMax: 64)
            var held: [Int] = []
            var limitHits = 0
            for step in 0..<20_000 {
                let allocateBias: UInt64 = (step / 1_000) % 2 == 0 ? 70 : 30
                if held.isEmpty || next() % 100 < allocateBias {
                    let got = pool.allocate()
                    XCTAssertEqual(got, ref.allocate(), "seed \(seed) step \(step)")
                    if let s = got { held.append(s) } else { limitHits += 1 }
                } else {
                    let s = held.remove(at: Int(next() % UInt64(held.count)))
                    pool.release(s)
                    ref.release(s)
                }
                XCTAssertEqual(pool.inUse, held.count)
            }
            assertAgree(pool, ref, "seed \(seed) end")
            XCTAssertGreaterThan(limitHits, 0, "seed \(seed): the run never reached slotsMax")
        }
    }

    func testEmptyLimitHandsOutNothing() {
        var pool = SlotPool(slotsMax: 0)
        XCTAssertNil(pool.allocate())
        XCTAssertEqual(pool.slotCount, 0)
    }
}
