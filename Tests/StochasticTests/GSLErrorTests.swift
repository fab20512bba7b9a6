import CGSL
import XCTest
@testable import Stochastic

final class GSLErrorTests: XCTestCase {
    /// Each named case maps to its GSL status and back; unknown codes are kept verbatim.
    func testStatusMapping() {
        let named: [(Int, GSLError)] = [
            (GSL_EDOM, .domain), (GSL_ERANGE, .range), (GSL_EINVAL, .invalidArgument), (GSL_ENOMEM, .noMemory),
            (GSL_EZERODIV, .divisionByZero), (GSL_EUNDRFLW, .underflow), (GSL_EOVRFLW, .overflow),
            (GSL_ELOSS, .lossOfAccuracy), (GSL_EMAXITER, .maxIterations), (GSL_EFAILED, .failed),
        ]
        for (code, error) in named {
            XCTAssertEqual(GSLError(status: Int32(code)), error)
            XCTAssertEqual(error.status, Int32(code))
        }
        XCTAssertNil(GSLError(status: Int32(GSL_SUCCESS)))
        XCTAssertEqual(GSLError(status: Int32(GSL_FAILURE)), .failed)
        XCTAssertEqual(GSLError(status: Int32(GSL_ESING)), .other(status: Int32(GSL_ESING)))
        XCTAssertEqual(GSLError.other(status: Int32(GSL_ESING)).status, Int32(GSL_ESING))
    }

    /// Messages are GSL's own text (gsl_errno.h: "input domain error", "malloc failed", ...).
    func testMessagesAreGSLText() {
        XCTAssertEqual(GSLError.domain.message, "input domain error")
        XCTAssertEqual(GSLError.noMemory.message, "malloc failed")
        XCTAssertEqual(GSLError.overflow.description, "GSL error 16: overflow")
    }

    func testCheckThrowsOnlyOnFailure() {
        XCTAssertNoThrow(try GSLError.check(0))
        XCTAssertThrowsError(try GSLError.check(Int32(GSL_EDOM))) { XCTAssertEqual($0 as? GSLError, .domain) }
    }

    /// A real status-returning GSL call: Γ(200) overflows a double, and with the abort handler off
    /// the status comes back as `.overflow` instead of aborting the process.
    func testGammaFunctionOverflowIsReported() throws {
        XCTAssertEqual(try Distribution.gammaFunction(5), 24, accuracy: 1e-12)
        XCTAssertThrowsError(try Distribution.gammaFunction(200)) { XCTAssertEqual($0 as? GSLError, .overflow) }
        // So a Weibull whose mean is not representable reports no mean rather than crashing.
        XCTAssertNil(Distribution.weibull(shape: 0.005, scale: 1).mean)
        XCTAssertEqual(try XCTUnwrap(Distribution.weibull(shape: 1, scale: 2).mean), 2, accuracy: 1e-12)
    }
}
