import CGSL
import XCTest
@testable import Stochastic

/// The GSL-backed draws of `RandomStream` and `DiscreteTable`.
///
/// Bounds: a count of a category with probability p over n draws is Binomial(n, p); the test
/// allows 5 standard deviations, sqrt(n p (1 - p)), so a correct sampler fails one check with
/// probability below 6e-7 (normal approximation, n p >= 10^4). The mean of n exponential draws with
/// mean m has standard deviation m / sqrt(n); again 5 of them.
final class GSLDrawTests: XCTestCase {
    private let purpose = StreamPurpose("test.gsl-draws")

    /// `gsl_ran_bernoulli` consumes one uniform and answers u < p: the same booleans as comparing
    /// the stream's uniform with p, draw for draw.
    func testBernoulliIsOneUniformBelowP() {
        for seed: UInt64 in [1, 2, 99] {
            let a = RandomStream(masterSeed: seed, entity: 1, purpose: purpose)
            let b = RandomStream(masterSeed: seed, entity: 1, purpose: purpose)
            for i in 0..<10_000 {
                let p = Double(i % 11) / 10
                XCTAssertEqual(a.bernoulli(p), b.uniform() < p, "seed \(seed) draw \(i) p \(p)")
            }
        }
    }

    func testBernoulliAtTheBounds() {
        let r = RandomStream(masterSeed: 3, entity: 0, purpose: purpose)
        for _ in 0..<1_000 {
            XCTAssertFalse(r.bernoulli(0))
            XCTAssertTrue(r.bernoulli(1))
        }
    }

    /// GSL's exponential is the inversion -m log(1 - u) of one uniform.
    func testExponentialIsGSLInversion() {
        let a = RandomStream(masterSeed: 5, entity: 2, purpose: purpose)
        let b = RandomStream(masterSeed: 5, entity: 2, purpose: purpose)
        for i in 0..<10_000 {
            let x = a.exponential(mean: 2.5)
            let u = b.uniform()
            XCTAssertEqual(x, -2.5 * log1p(-u), accuracy: 1e-12 * max(1, x), "draw \(i)")
            XCTAssertGreaterThanOrEqual(x, 0)
        }
    }

    /// A distribution's exponential kernel is GSL's exponential (gsl_ran_exponential), draw for draw.
    func testSamplerExponentialIsGSLs() throws {
        let sampler = try Sampler(.exponential(mean: 0.7))
        let a = RandomStream(masterSeed: 8, entity: 3, purpose: purpose)
        let b = RandomStream(masterSeed: 8, entity: 3, purpose: purpose)
        for i in 0..<10_000 { XCTAssertEqual(sampler.sample(a), b.exponential(mean: 0.7), "draw \(i)") }
    }

    func testExponentialMean() {
        for seed: UInt64 in [11, 12, 13] {
            let r = RandomStream(masterSeed: seed, entity: 0, purpose: purpose)
            let n = 100_000, m = 2.0
            var sum = 0.0
            for _ in 0..<n { sum += r.exponential(mean: m) }
            XCTAssertEqual(sum / Double(n), m, accuracy: 5 * m / Double(n).squareRoot(), "seed \(seed)")
        }
    }

    /// Binomial(n, p) draws: mean n·p and variance n·p·(1 − p). The mean of m draws has standard
    /// deviation sqrt(n p (1 − p) / m); 5 of them. p = 0 and p = 1 are exact.
    func testBinomialMeanAndBounds() {
        let r = RandomStream(masterSeed: 31, entity: 0, purpose: purpose)
        for (p, n) in [(0.01, UInt32(718)), (0.3, 20), (0.9, 1_000)] {
            let m = 50_000
            var sum = 0.0
            for _ in 0..<m {
                let k = r.binomial(p, trials: n)
                XCTAssertLessThanOrEqual(k, n)
                sum += Double(k)
            }
            let mean = Double(n) * p
            XCTAssertEqual(sum / Double(m), mean, accuracy: 5 * (mean * (1 - p) / Double(m)).squareRoot(), "p \(p) n \(n)")
        }
        for _ in 0..<100 {
            XCTAssertEqual(r.binomial(0, trials: 500), 0)
            XCTAssertEqual(r.binomial(1, trials: 500), 500)
        }
    }

    func testDiscreteTableFrequencies() throws {
        let weights = [1.0, 2, 0, 3, 4]
        let table = try DiscreteTable(weights: weights)
        XCTAssertEqual(table.count, 5)
        let total = weights.reduce(0, +)
        for seed: UInt64 in [21, 22] {
            let r = RandomStream(masterSeed: seed, entity: 0, purpose: purpose)
            let n = 200_000
            var counts = [Int](repeating: 0, count: weights.count)
            for _ in 0..<n { counts[table.draw(r)] += 1 }
            for (k, w) in weights.enumerated() {
                let p = w / total
                XCTAssertEqual(table.probability(k), p, accuracy: 1e-12)
                let sd = (Double(n) * p * (1 - p)).squareRoot()
                XCTAssertEqual(Double(counts[k]), Double(n) * p, accuracy: max(5 * sd, 0.5), "seed \(seed) category \(k)")
            }
        }
    }

    func testDiscreteTableSameStreamSameDraws() throws {
        let table = try DiscreteTable(weights: [0.2, 0.3, 0.5])
        let a = RandomStream(masterSeed: 8, entity: 4, purpose: purpose)
        let b = RandomStream(masterSeed: 8, entity: 4, purpose: purpose)
        XCTAssertEqual((0..<1_000).map { _ in table.draw(a) }, (0..<1_000).map { _ in table.draw(b) })
    }

    func testDiscreteTableRejectsBadWeights() {
        XCTAssertThrowsError(try DiscreteTable(weights: []))
        XCTAssertThrowsError(try DiscreteTable(weights: [0, 0]))
        XCTAssertThrowsError(try DiscreteTable(weights: [1, -1])) { error in
            XCTAssertTrue("\(error)".contains("[1]"), "\(error)")
        }
        XCTAssertThrowsError(try DiscreteTable(weights: [1, .nan]))
        XCTAssertThrowsError(try DiscreteTable(weights: [1, .infinity]))
    }
}
