/// A message for the user (already naming the file or path it is about).
package struct CommandMessage: Error, CustomStringConvertible {
    package let description: String
    package init(_ description: String) { self.description = description }
}
