require "json"
require_relative "book"

# Library lends books.
module Library
  VERSION = "1.0"

  # Shelf holds books.
  class Shelf < Base
    attr_reader :books

    # Creates a shelf.
    def initialize(books = [])
      @books = books
    end

    # Adds a book.
    def add(book)
      @books << book
      self
    end

    def self.empty
      new([])
    end

    class << self
      def load(path)
        new(JSON.parse(File.read(path)))
      end
    end
  end

  def self.version
    VERSION
  end
end

class Library::Catalog
  def size
    0
  end
end

def helper(x)
  x * 2
end

puts Library.version
