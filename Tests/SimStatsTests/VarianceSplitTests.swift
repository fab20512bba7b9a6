import XCTest
@testable import SimStats
import Stochastic

/// The nested-design split against worlds whose two variances are known.
final class VarianceSplitTests: XCTestCase {
    /// y_dj = a_d + e_dj with a ~ N(0, σ²_in), e ~ N(0, σ²_sim). Over many draws the estimates
    /// must sit within 4 standard errors of the truth. The standard errors follow from the
    /// chi-square laws of the mean squares: Var(MSW) = 2σ⁴_sim / (k(m−1)) and
    /// Var(MSB) = 2(σ²_sim + mσ²_in)² / (k−1), so Var(σ̂²_in) = (Var(MSB) + Var(MSW)) / m².
    func testRecoversKnownInputAndSimulationVariances() throws {
        for (sdIn, sdSim, m) in [(2.0, 1.0, 2), (0.5, 3.0, 2), (1.0, 1.0, 5), (0.0, 1.0, 2)] {
            let k = 4_000
            let a = try Sampler(.normal(mean: 0, sd: 1, lower: nil, upper: nil))
            // One stream per draw, as the simulator derives one per entity.
            let rng = RandomStream(masterSeed: 20261202, entity: 0, purpose: StreamPurpose("test.varianceSplit.m\(m)"))
            var values: [Double] = []
            for d in 0..<k {
                rng.reseed(masterSeed: 20261202, entity: UInt64(d), purpose: StreamPurpose("test.varianceSplit.m\(m)"))
                let input = sdIn * a.sample(rng)
                for _ in 0..<m { values.append(10 + input + sdSim * a.sample(rng)) }
            }
            let split = try XCTUnwrap(VarianceSplit(values: values, perDraw: m))
            XCTAssertEqual(split.draws, k)
            let vIn = sdIn * sdIn, vSim = sdSim * sdSim
            let seW = (2 * vSim * vSim / Double(k * (m - 1))).squareRoot()
            let varB = 2 * pow(vSim + Double(m) * vIn, 2) / Double(k - 1)
            let seIn = ((varB + seW * seW) / Double(m * m)).squareRoot()
            XCTAssertEqual(split.simulationVariance, vSim, accuracy: 4 * seW, "σ_in \(sdIn), σ_sim \(sdSim), m \(m)")
            XCTAssertEqual(split.inputVariance, vIn, accuracy: 4 * seIn, "σ_in \(sdIn), σ_sim \(sdSim), m \(m)")
        }
    }

    /// Hand-checked: draws {1, 3} and {5, 7}: draw means 2 and 6, MSW = (1+1+1+1)/2 = 2,
    /// MSB = 2·(4+4)/1 = 16, σ²_in = (16 − 2)/2 = 7.
    func testHandCheckedSplitAndDrawMeans() throws {
        let split = try XCTUnwrap(VarianceSplit(values: [1, 3, 5, 7, 100], perDraw: 2))
        XCTAssertEqual(split.simulationVariance, 2)
        XCTAssertEqual(split.inputVariance, 7)
        XCTAssertEqual(split.inputShare ?? -1, 7.0 / 9.0, accuracy: 1e-15)
        XCTAssertEqual(VarianceSplit.drawMeans([1, 3, 5, 7, 100], perDraw: 2), [2, 6])
        XCTAssertNil(VarianceSplit(values: [1, 3], perDraw: 2), "one draw cannot show input variance")
        XCTAssertNil(VarianceSplit(values: [1, 3, 5, 7], perDraw: 1))
        XCTAssertNil(VarianceSplit(values: [5, 5, 5, 5], perDraw: 2)?.inputShare)
    }
}
