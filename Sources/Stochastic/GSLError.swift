import CGSL

/// A GSL status code (`gsl_errno.h`) as a Swift error.
///
/// GSL's abort-on-error handler is switched off by `GSLRuntime.ensureInitialised()`, so GSL
/// functions that return a status report failures to their caller instead of aborting; `check(_:)`
/// turns a non-zero status into one of these cases. `message` is GSL's own `gsl_strerror` text.
@usableFromInline package enum GSLError: Error, Sendable, Equatable, CustomStringConvertible {
    /// `GSL_EDOM`: input domain error (e.g. sqrt(-1)).
    case domain
    /// `GSL_ERANGE`: output range error (e.g. exp(1e100)).
    case range
    /// `GSL_EINVAL`: invalid argument supplied by the caller.
    case invalidArgument
    /// `GSL_ENOMEM`: malloc failed.
    case noMemory
    /// `GSL_EZERODIV`: division by zero.
    case divisionByZero
    /// `GSL_EUNDRFLW`: underflow.
    case underflow
    /// `GSL_EOVRFLW`: overflow.
    case overflow
    /// `GSL_ELOSS`: loss of accuracy.
    case lossOfAccuracy
    /// `GSL_EMAXITER`: an iteration exceeded its maximum count.
    case maxIterations
    /// `GSL_EFAILED` / `GSL_FAILURE`: generic failure.
    case failed
    /// Any other non-zero status, kept verbatim.
    case other(status: Int32)

    /// The error for a GSL status, or nil for `GSL_SUCCESS`.
    @usableFromInline package init?(status: Int32) {
        switch Int(status) {
        case GSL_SUCCESS: return nil
        case GSL_EDOM: self = .domain
        case GSL_ERANGE: self = .range
        case GSL_EINVAL: self = .invalidArgument
        case GSL_ENOMEM: self = .noMemory
        case GSL_EZERODIV: self = .divisionByZero
        case GSL_EUNDRFLW: self = .underflow
        case GSL_EOVRFLW: self = .overflow
        case GSL_ELOSS: self = .lossOfAccuracy
        case GSL_EMAXITER: self = .maxIterations
        case GSL_EFAILED, GSL_FAILURE: self = .failed
        default: self = .other(status: status)
        }
    }

    /// The GSL status code (`GSL_EDOM`, ...). `.failed` reports `GSL_EFAILED`.
    @usableFromInline package var status: Int32 {
        switch self {
        case .domain: return Int32(GSL_EDOM)
        case .range: return Int32(GSL_ERANGE)
        case .invalidArgument: return Int32(GSL_EINVAL)
        case .noMemory: return Int32(GSL_ENOMEM)
        case .divisionByZero: return Int32(GSL_EZERODIV)
        case .underflow: return Int32(GSL_EUNDRFLW)
        case .overflow: return Int32(GSL_EOVRFLW)
        case .lossOfAccuracy: return Int32(GSL_ELOSS)
        case .maxIterations: return Int32(GSL_EMAXITER)
        case .failed: return Int32(GSL_EFAILED)
        case .other(let status): return status
        }
    }

    /// GSL's description of the status (`gsl_strerror`).
    @usableFromInline package var message: String { String(cString: gsl_strerror(status)) }

    /// `GSL error <status>: <message>`.
    @usableFromInline package var description: String { "GSL error \(status): \(message)" }

    /// Throws the error for `status` unless it is `GSL_SUCCESS`.
    @inlinable
    package static func check(_ status: Int32) throws(GSLError) {
        if status != 0, let error = GSLError(status: status) { throw error }
    }
}
