/// A message for the user (already naming the file or path it is about).
struct CommandMessage: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
