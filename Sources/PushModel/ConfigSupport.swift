import Foundation

/// An error building a run from a configuration that was read and checked (a distribution GSL cannot
/// sample, a payload PreloadKit refuses, a model limit), naming the field path.
package struct PushModelError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Field path in the world configuration, e.g. `campaigns[0].assets[1].bytes`.
    package var path: String
    /// What went wrong, with the value found and what was expected.
    package var reason: String

    package init(path: String, reason: String) {
        self.path = path
        self.reason = reason
    }

    package var description: String { path.isEmpty ? reason : "\(path): \(reason)" }
}
