import CGSL

/// A categorical distribution over `0..<count` preprocessed once into GSL's Walker alias table
/// (`gsl_ran_discrete_preproc`); each draw is one `gsl_ran_discrete` call (one uniform, O(1)).
///
/// Build it once per run (not per draw); a draw allocates nothing and only reads the table, so one
/// table may be shared by threads, each with its own `RandomStream`.
@usableFromInline package final class DiscreteTable: @unchecked Sendable {
    /// Number of categories.
    @usableFromInline package let count: Int
    @usableFromInline
    let table: UnsafeMutablePointer<gsl_ran_discrete_t>

    /// A table over `weights` (non-empty, each finite and >= 0, not all zero; they need not sum
    /// to 1).
    /// - Throws: `DistributionError` naming the offending weight, or `GSLError.noMemory`.
    @usableFromInline package init(weights: [Double]) throws {
        GSLRuntime.ensureInitialised()
        guard !weights.isEmpty else { throw DistributionError(path: "", reason: "a categorical draw needs at least one weight") }
        for (i, w) in weights.enumerated() where !(w.isFinite && w >= 0) {
            throw DistributionError(path: "[\(i)]", reason: "a weight must be finite and >= 0, found \(w)")
        }
        guard weights.contains(where: { $0 > 0 }) else {
            throw DistributionError(path: "", reason: "at least one weight must be > 0")
        }
        guard let t = weights.withUnsafeBufferPointer({ gsl_ran_discrete_preproc($0.count, $0.baseAddress) }) else {
            throw GSLError.noMemory
        }
        table = t
        count = weights.count
    }

    deinit { gsl_ran_discrete_free(table) }

    /// One category index in `0..<count`.
    @inlinable
    package func draw(_ rng: RandomStream) -> Int { gsl_ran_discrete(rng.rng, table) }

    /// The probability of category `k` (GSL's `gsl_ran_discrete_pdf`).
    @usableFromInline package func probability(_ k: Int) -> Double { gsl_ran_discrete_pdf(k, table) }
}
