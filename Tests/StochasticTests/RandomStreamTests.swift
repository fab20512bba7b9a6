import CGSL
import XCTest
@testable import Stochastic

/// Stream identity and independence. Two independent streams of 32-bit uniforms (taus2) agree at a
/// given position with probability 2^-32, so "no equal draw among the first 1000" fails by chance
/// with probability ~2.3e-7; their Pearson correlation over n draws is ~N(0, 1/n), bounded here
/// by 4.5 / sqrt(n).
final class RandomStreamTests: XCTestCase {
    private let purpose = StreamPurpose("network.rtt")

    private func draws(_ stream: RandomStream, _ count: Int) -> [Double] {
        (0..<count).map { _ in stream.uniform() }
    }

    private func correlation(_ x: [Double], _ y: [Double]) -> Double {
        let n = Double(x.count)
        let mx = x.reduce(0, +) / n, my = y.reduce(0, +) / n
        var sxy = 0.0, sxx = 0.0, syy = 0.0
        for (a, b) in zip(x, y) {
            sxy += (a - mx) * (b - my)
            sxx += (a - mx) * (a - mx)
            syy += (b - my) * (b - my)
        }
        return sxy / (sxx * syy).squareRoot()
    }

    /// FNV-1a 64 reference vectors (from the FNV specification's test suite).
    func testPurposeIdsAreFNV1a() {
        XCTAssertEqual(StreamPurpose("").rawValue, 0xcbf2_9ce4_8422_2325)
        XCTAssertEqual(StreamPurpose("a").rawValue, 0xaf63_dc4c_8601_ec8c)
        XCTAssertEqual(StreamPurpose("foobar").rawValue, 0x8594_4171_f739_67e8)
    }

    func testSameTripleGivesIdenticalDraws() throws {
        let a = RandomStream(masterSeed: 42, entity: 7, purpose: purpose)
        let b = RandomStream(masterSeed: 42, entity: 7, purpose: purpose)
        XCTAssertEqual(draws(a, 10_000), draws(b, 10_000), "seed=\(a.seed)")
        // The same holds through a sampler that consumes a variable number of uniforms per draw.
        let sampler = try Sampler(.gamma(shape: 0.7, scale: 2))
        let x = (0..<1_000).map { _ in sampler.sample(a) }
        let y = (0..<1_000).map { _ in sampler.sample(b) }
        XCTAssertEqual(x, y, "seed=\(a.seed)")
    }

    func testDifferentTriplesGiveUnrelatedStreams() {
        let base = (master: UInt64(42), entity: UInt64(7), purpose: purpose)
        let variants: [(String, RandomStream)] = [
            ("purpose", RandomStream(masterSeed: base.master, entity: base.entity, purpose: StreamPurpose("network.rtt2"))),
            ("entity+1", RandomStream(masterSeed: base.master, entity: base.entity + 1, purpose: base.purpose)),
            ("masterSeed+1", RandomStream(masterSeed: base.master + 1, entity: base.entity, purpose: base.purpose)),
        ]
        let n = 100_000
        let reference = draws(RandomStream(masterSeed: base.master, entity: base.entity, purpose: base.purpose), n)
        for (label, stream) in variants {
            let other = draws(stream, n)
            let equalPositions = zip(reference.prefix(1_000), other.prefix(1_000)).filter { $0 == $1 }.count
            XCTAssertEqual(equalPositions, 0, "\(label) seed=\(stream.seed): \(equalPositions) equal draws in the first 1000")
            let r = correlation(reference, other)
            XCTAssertLessThan(abs(r), StatBounds.standardErrors / Double(n).squareRoot(), "\(label) seed=\(stream.seed): correlation \(r)")
        }
    }

    /// All 64 seed bits matter (GSL's own taus2 seeding keeps only the low 32 bits).
    func testSeedsDifferingOnlyInHighBitsGiveDifferentStreams() {
        let low: UInt64 = 12_345
        for shift in [32, 40, 63] {
            let a = RandomStream(seed: low)
            let b = RandomStream(seed: low | (1 << UInt64(shift)))
            let equalPositions = zip(draws(a, 1_000), draws(b, 1_000)).filter { $0 == $1 }.count
            XCTAssertEqual(equalPositions, 0, "seeds \(a.seed) and \(b.seed): \(equalPositions) equal draws")
        }
    }

    func testReseedMatchesFreshStream() {
        let stream = RandomStream(masterSeed: 1, entity: 2, purpose: purpose)
        _ = draws(stream, 37)
        stream.reseed(masterSeed: 9, entity: 10, purpose: purpose)
        let fresh = RandomStream(masterSeed: 9, entity: 10, purpose: purpose)
        XCTAssertEqual(stream.seed, fresh.seed)
        XCTAssertEqual(draws(stream, 1_000), draws(fresh, 1_000), "seed=\(fresh.seed)")

        stream.reseed(0xdead_beef_cafe)
        XCTAssertEqual(draws(stream, 1_000), draws(RandomStream(seed: 0xdead_beef_cafe), 1_000), "seed=0xdeadbeefcafe")
    }

    /// The inlined taus2 seeding (`prestage_taus2_set_state`) gives GSL's own generator: the same
    /// state words raised to taus2's minima, written into a GSL taus2 state directly (no warm-up),
    /// then drawn through `gsl_rng_get`. Exact equality of the next 64 raw outputs, for 5,000 seeds
    /// and for state words below the minima.
    func testInlinedSeedingMatchesGSLState() throws {
        guard let reference = gsl_rng_alloc(prestage_rng_type_taus2()) else { throw XCTSkip("gsl_rng_alloc failed") }
        defer { gsl_rng_free(reference) }
        let stream = RandomStream(seed: 0)
        var seeds: [UInt64] = (0..<4_990).map { StreamSeed.mix(UInt64($0) &* 0x9E37_79B9) }
        // Edge seeds; state words below taus2's minima are set directly in the second loop.
        seeds.append(contentsOf: [0, 1, 2, 3, UInt64.max, 1 << 63, 0xffff_ffff, 0x1_0000_0000, 42, 7])
        for seed in seeds {
            stream.reseed(seed)
            let m = StreamSeed.mix(seed)
            let words = [UInt(truncatingIfNeeded: m & 0xffff_ffff), UInt(truncatingIfNeeded: m >> 32),
                         UInt(truncatingIfNeeded: StreamSeed.mix(m) & 0xffff_ffff)]
            let state = gsl_rng_state(reference).assumingMemoryBound(to: UInt.self)
            for (k, minimum) in [UInt(2), 8, 16].enumerated() { state[k] = words[k] < minimum ? words[k] + minimum : words[k] }
            for i in 0..<64 {
                let expected = gsl_rng_get(reference), got = gsl_rng_get(stream.rng)
                if expected != got {
                    XCTFail("seed=\(seed): draw \(i) is \(got), GSL's generator gives \(expected)")
                    break
                }
            }
        }
        // Words below the minima go through the same raise: state (0, 0, 0) and (1, 7, 15).
        for words: (UInt, UInt, UInt) in [(0, 0, 0), (1, 7, 15), (2, 8, 16)] {
            prestage_taus2_set_state(stream.rng, words.0, words.1, words.2)
            let state = gsl_rng_state(reference).assumingMemoryBound(to: UInt.self)
            state[0] = words.0 < 2 ? words.0 + 2 : words.0
            state[1] = words.1 < 8 ? words.1 + 8 : words.1
            state[2] = words.2 < 16 ? words.2 + 16 : words.2
            XCTAssertEqual((0..<64).map { _ in gsl_rng_get(stream.rng) }, (0..<64).map { _ in gsl_rng_get(reference) },
                           "state words \(words)")
        }
    }

    /// uniform() is U[0, 1): KS at alpha = 0.001; uniformPositive() never returns 0.
    func testUniformIsUniform() {
        let seed: UInt64 = 401
        let stream = RandomStream(seed: seed)
        let n = 100_000
        var xs = draws(stream, n)
        XCTAssertTrue(xs.allSatisfy { $0 >= 0 && $0 < 1 }, "seed=\(seed)")
        let d = ksStatistic(&xs) { min(max($0, 0), 1) }
        XCTAssertLessThan(d, StatBounds.ksCritical(n: n), "seed=\(seed) KS D=\(d)")
        XCTAssertTrue((0..<10_000).allSatisfy { _ in stream.uniformPositive() > 0 }, "seed=\(seed)")
    }

    /// Discrete sanity checks: uniformInt(below:) by chi-square (alpha = 0.001, k - 1 dof) and
    /// bernoulli(p) frequency within 4.5 binomial standard errors.
    func testUniformIntAndBernoulli() {
        let seed: UInt64 = 402
        let stream = RandomStream(seed: seed)
        let k = 10, n = 100_000
        var counts = [Int](repeating: 0, count: k)
        for _ in 0..<n {
            let i = stream.uniformInt(below: UInt64(k))
            guard i < UInt64(k) else { return XCTFail("seed=\(seed): uniformInt returned \(i)") }
            counts[Int(i)] += 1
        }
        let stat = chiSquareStatistic(counts: counts, probabilities: [Double](repeating: 1 / Double(k), count: k))
        let critical = gsl_cdf_chisq_Qinv(StatBounds.chiSquareAlpha, Double(k - 1))
        XCTAssertLessThan(stat, critical, "seed=\(seed) counts=\(counts)")

        let p = 0.3
        let hits = (0..<n).filter { _ in stream.bernoulli(p) }.count
        let se = (Double(n) * p * (1 - p)).squareRoot()
        XCTAssertEqual(Double(hits), Double(n) * p, accuracy: StatBounds.standardErrors * se, "seed=\(seed)")
        XCTAssertFalse((0..<1_000).contains { _ in stream.bernoulli(0) }, "seed=\(seed)")
        XCTAssertTrue((0..<1_000).allSatisfy { _ in stream.bernoulli(1) }, "seed=\(seed)")
    }
}
