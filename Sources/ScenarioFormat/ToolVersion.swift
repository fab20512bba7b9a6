/// The tool's version, recorded in every summary and sweep manifest.
package enum ToolVersion {
    /// The version number.
    package static let number = "0.1.0"
    /// "prestage 0.1.0".
    package static var text: String { "prestage " + number }
}
