import XCTest
@testable import SimKernel

final class SimTimeTests: XCTestCase {
    func testUnitConstructorsAgreeOnTicks() {
        XCTAssertEqual(SimTime.seconds(2).ticks, 2_000_000)
        XCTAssertEqual(SimTime.milliseconds(3).ticks, 3_000)
        XCTAssertEqual(SimTime.microseconds(7).ticks, 7)
        XCTAssertEqual(SimDuration.seconds(0.25).ticks, 250_000)
        XCTAssertEqual(SimDuration.milliseconds(-4).ticks, -4_000)
        XCTAssertEqual(SimDuration.microseconds(9).ticks, 9)
        XCTAssertEqual(SimTime.seconds(1.5).seconds, 1.5)
        XCTAssertEqual(SimDuration.milliseconds(1500).seconds, 1.5)
    }

    func testSecondsRoundToNearestTickTiesAwayFromZero() {
        XCTAssertEqual(SimDuration.seconds(1.4e-6).ticks, 1)
        XCTAssertEqual(SimDuration.seconds(1.6e-6).ticks, 2)
        XCTAssertEqual(SimTime.seconds(-1.6e-6).ticks, -2)
        // An exact tie: 1/128 s = 7812.5 µs exactly in binary64 (a dyadic times 10^6).
        XCTAssertEqual(SimDuration.seconds(1.0 / 128).ticks, 7_813)
        XCTAssertEqual(SimDuration.seconds(-1.0 / 128).ticks, -7_813)
    }

    func testValidatingInitialisersRejectNonFiniteAndOutOfRange() {
        XCTAssertNil(SimTime(validatingSeconds: .nan))
        XCTAssertNil(SimTime(validatingSeconds: .infinity))
        XCTAssertNil(SimDuration(validatingSeconds: -.infinity))
        // 2^63 µs = 9,223,372,036,854.775808 s: just out of range; 9.2e12 s is in range.
        XCTAssertNil(SimDuration(validatingSeconds: 9_223_372_036_854.776))
        XCTAssertNil(SimTime(validatingSeconds: 1e300))
        XCTAssertEqual(SimTime(validatingSeconds: 9.2e12)?.ticks, 9_200_000_000_000_000_000)
        XCTAssertEqual(SimDuration(validatingSeconds: -3)?.ticks, -3_000_000)
        XCTAssertNil(SimTime(validatingMilliseconds: Int64.max / 999))
        XCTAssertNil(SimDuration(validatingMilliseconds: Int64.min))
        XCTAssertEqual(SimDuration(validatingMilliseconds: -7)?.ticks, -7_000)
        XCTAssertEqual(SimTime(validatingMilliseconds: Int64.max / 1_000)?.ticks, Int64.max / 1_000 * 1_000)
    }

    func testArithmetic() {
        let t = SimTime.seconds(10)
        let d = SimDuration.milliseconds(250)
        XCTAssertEqual((t + d).ticks, 10_250_000)
        XCTAssertEqual((t - d).ticks, 9_750_000)
        XCTAssertEqual((t + d) - t, d)
        XCTAssertEqual(t - (t + d), SimDuration(ticks: -250_000))
        XCTAssertEqual((d * 4).ticks, 1_000_000)
        XCTAssertEqual((3 * d).ticks, 750_000)
        XCTAssertEqual((d + d - SimDuration.microseconds(1)).ticks, 499_999)
        var u = t
        u += d
        XCTAssertEqual(u.ticks, 10_250_000)
        XCTAssertLessThan(t, u)
        XCTAssertLessThan(SimDuration(ticks: -1), .zero)
    }

    func testAddingReportsOverflowInsteadOfTrapping() {
        XCTAssertNil(SimTime.max.adding(.microseconds(1)))
        XCTAssertNil(SimTime(ticks: 1).adding(.max))
        XCTAssertEqual(SimTime(ticks: Int64.max - 1).adding(.microseconds(1)), .max)
        XCTAssertEqual(SimTime(ticks: 5).adding(.microseconds(-5)), .zero)
    }

    func testDescriptionUsesSixDecimals() {
        XCTAssertEqual(SimTime.seconds(12.0005).description, "12.000500s")
        XCTAssertEqual(SimDuration(ticks: -1_000_250).description, "-1.000250s")
        XCTAssertEqual(SimTime.zero.description, "0.000000s")
        XCTAssertEqual(SimTime(ticks: Int64.min).description, "-9223372036854.775808s")
        XCTAssertEqual(EventKind(0x0102).description, "kind 0x0102")
    }

    func testCodableRoundTrip() throws {
        let t = SimTime(ticks: -42)
        let d = SimDuration(ticks: 1_234_567)
        XCTAssertEqual(try JSONDecoder().decode([SimTime].self, from: JSONEncoder().encode([t])), [t])
        XCTAssertEqual(try JSONDecoder().decode([SimDuration].self, from: JSONEncoder().encode([d])), [d])
    }
}
