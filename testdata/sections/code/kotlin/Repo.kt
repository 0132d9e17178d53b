package com.example.repo

import kotlin.collections.List

/** Repo stores users. */
class Repo(private val db: Db) : Store {
    private val cache = mutableMapOf<String, User>()

    /** Finds a user. */
    fun find(id: String): User? {
        return cache[id] ?: db.load(id)
    }

    override fun save(u: User) = db.put(u)

    companion object {
        fun create(): Repo = Repo(Db())
    }
}

/** Store is a persistence port. */
interface Store {
    fun save(u: User)
}

data class User(val id: String, val name: String)

enum class Role { ADMIN, USER }

object Registry {
    fun lookup(name: String): Repo? = null
}

/** Top-level helper. */
fun String.slug(): String = lowercase().replace(" ", "-")

fun main() {
    println("repo")
}
