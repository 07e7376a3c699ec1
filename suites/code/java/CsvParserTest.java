package com.example.csv;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class CsvParserTest {

    private final CsvParser parser = new CsvParser(',', '"');

    @Test
    void splitsSimpleFields() {
        assertEquals(List.of("a", "b", "c"), parser.parseLine("a,b,c"));
    }

    @Test
    void keepsEmptyFields() {
        assertEquals(List.of("", "x", "", ""), parser.parseLine(",x,,"));
    }

    @Test
    @DisplayName("quoted fields may contain commas, quotes and newlines")
    void quotedFields() {
        String line = "\"Tokyo, Japan\",\"She said \"\"hi\"\"\",\"line1\nline2\"";
        assertEquals(List.of("Tokyo, Japan", "She said \"hi\"", "line1\nline2"), parser.parseLine(line));
    }

    @Test
    void unicodeIsPreserved() {
        assertEquals(List.of("東京", "Zürich", "São Paulo", "🙂"), parser.parseLine("東京,Zürich,São Paulo,🙂"));
    }

    @Test
    void unterminatedQuoteFails() {
        CsvParseException e = assertThrows(CsvParseException.class, () -> parser.parseLine("\"open,field"));
        assertEquals("unterminated quote starting at column 1", e.getMessage());
    }

    @ParameterizedTest(name = "{0} -> {1} fields")
    @CsvSource(delimiter = '|', value = {
        "a|1",
        "a,b|2",
        "'a,b',c|2",
        ",,,|4",
        "1.5,2.25,3.125,-4e10|4",
    })
    void fieldCounts(String input, int expected) {
        CsvParser quoteWithApostrophe = new CsvParser(',', '\'');
        assertEquals(expected, quoteWithApostrophe.parseLine(input).size());
    }
}
