import Foundation

/// A Foundation `DecodingError` as a short text naming the coding path (for messages about result
/// and baseline files written by the tool itself, which are read with `JSONDecoder`).
package enum DecodingErrorText {
    /// The error's text: for a `DecodingError`, the coding path and what went wrong; else its description.
    package static func describe(_ error: any Error) -> String {
        guard let e = error as? DecodingError else { return "\(error)" }
        func path(_ ctx: DecodingError.Context) -> String {
            ctx.codingPath.map { $0.intValue.map { "[\($0)]" } ?? "." + $0.stringValue }.joined().trimmingCharacters(in: CharacterSet(charactersIn: "."))
        }
        switch e {
        case let .keyNotFound(key, ctx): return "\(path(ctx)).\(key.stringValue) is missing".trimmingCharacters(in: CharacterSet(charactersIn: "."))
        case let .typeMismatch(_, ctx), let .valueNotFound(_, ctx), let .dataCorrupted(ctx): return "\(path(ctx)): \(ctx.debugDescription)"
        @unknown default: return "\(error)"
        }
    }
}
