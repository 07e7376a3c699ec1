package com.example.text;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A prefix tree over Unicode code points (not UTF-16 chars), so that words
 * containing emoji or CJK Extension B characters such as "𠮷" are handled correctly.
 */
public class Trie {

    private static final class Node {
        final Map<Integer, Node> children = new HashMap<>();
        boolean terminal;
        int count; // number of words passing through this node
    }

    private final Node root = new Node();
    private int size;

    /** Inserts a word; returns false if it was already present. */
    public boolean insert(String word) {
        Node node = root;
        int[] cps = word.codePoints().toArray();
        for (int cp : cps) {
            node = node.children.computeIfAbsent(cp, k -> new Node());
        }
        if (node.terminal) {
            return false;
        }
        node.terminal = true;
        node = root;
        for (int cp : cps) {
            node = node.children.get(cp);
            node.count++;
        }
        size++;
        return true;
    }

    public boolean contains(String word) {
        Node node = find(word);
        return node != null && node.terminal;
    }

    /** How many stored words start with {@code prefix}. */
    public int countPrefix(String prefix) {
        if (prefix.isEmpty()) {
            return size;
        }
        Node node = find(prefix);
        return node == null ? 0 : node.count;
    }

    /** Up to {@code limit} completions of {@code prefix}, in code point order. */
    public List<String> complete(String prefix, int limit) {
        List<String> out = new ArrayList<>();
        Node node = find(prefix);
        if (node != null) {
            collect(node, new StringBuilder(prefix), out, limit);
        }
        return out;
    }

    public int size() {
        return size;
    }

    private Node find(String s) {
        Node node = root;
        for (int i = 0; i < s.length() && node != null; ) {
            int cp = s.codePointAt(i);
            node = node.children.get(cp);
            i += Character.charCount(cp);
        }
        return node;
    }

    private static void collect(Node node, StringBuilder prefix, List<String> out, int limit) {
        if (out.size() >= limit) {
            return;
        }
        if (node.terminal) {
            out.add(prefix.toString());
        }
        node.children.keySet().stream().sorted().forEach(cp -> {
            int len = prefix.length();
            prefix.appendCodePoint(cp);
            collect(node.children.get(cp), prefix, out, limit);
            prefix.setLength(len);
        });
    }
}
