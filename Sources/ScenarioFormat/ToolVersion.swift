/// The tool's version, recorded in every summary and sweep manifest.
public enum ToolVersion {
    /// The version number.
    public static let number = "0.1.0"
    /// "prestage 0.1.0".
    public static var text: String { "prestage " + number }
}
