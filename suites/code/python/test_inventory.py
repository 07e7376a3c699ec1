import pytest

from inventory import Inventory, Item, OutOfStock


@pytest.fixture
def inv() -> Inventory:
    inventory = Inventory()
    inventory.add(Item(sku="TEA-001", name="Sencha 緑茶", price_cents=1250), quantity=10)
    inventory.add(Item(sku="TEA-002", name="Hōjicha ほうじ茶", price_cents=980), quantity=3)
    inventory.add(Item(sku="CUP-100", name="Yunomi cup 🍵", price_cents=2400), quantity=0)
    return inventory


def test_quantity_after_add(inv):
    assert inv.quantity("TEA-001") == 10
    inv.add(Item(sku="TEA-001", name="Sencha 緑茶", price_cents=1250), quantity=5)
    assert inv.quantity("TEA-001") == 15


def test_remove_reduces_stock(inv):
    inv.remove("TEA-002", 2)
    assert inv.quantity("TEA-002") == 1


def test_remove_more_than_available_raises(inv):
    with pytest.raises(OutOfStock, match="TEA-002: requested 4, only 3 left"):
        inv.remove("TEA-002", 4)
    assert inv.quantity("TEA-002") == 3  # unchanged after the failed removal


@pytest.mark.parametrize(
    ("sku", "expected"),
    [("TEA-001", 12_500), ("TEA-002", 2_940), ("CUP-100", 0)],
)
def test_stock_value(inv, sku, expected):
    assert inv.stock_value(sku) == expected


def test_total_value_is_sum_of_items(inv):
    assert inv.total_value() == 12_500 + 2_940


def test_out_of_stock_listing(inv):
    assert [item.sku for item in inv.out_of_stock()] == ["CUP-100"]


def test_unknown_sku(inv):
    with pytest.raises(KeyError):
        inv.quantity("NOPE-404")


def test_names_keep_unicode(inv):
    names = sorted(item.name for item in inv.items())
    assert names == ["Hōjicha ほうじ茶", "Sencha 緑茶", "Yunomi cup 🍵"]
