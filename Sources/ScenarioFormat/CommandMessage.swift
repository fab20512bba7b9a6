/// A message for the user (already naming the file or path it is about).
public struct CommandMessage: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
