import { describe, expect, it, beforeEach } from '@jest/globals';
import { Cart, formatPrice } from '../src/cart.js';

describe('Cart', () => {
  let cart;

  beforeEach(() => {
    cart = new Cart({ currency: 'JPY', taxRate: 0.1 });
  });

  it('starts empty', () => {
    expect(cart.items).toHaveLength(0);
    expect(cart.total()).toBe(0);
  });

  it('adds items and merges duplicates', () => {
    cart.add({ id: 'onigiri', name: 'おにぎり 🍙', price: 180 }, 2);
    cart.add({ id: 'onigiri', name: 'おにぎり 🍙', price: 180 }, 1);
    expect(cart.items).toEqual([{ id: 'onigiri', name: 'おにぎり 🍙', price: 180, qty: 3 }]);
  });

  it('computes subtotal, tax and total in whole yen', () => {
    cart.add({ id: 'ramen', name: 'ラーメン', price: 950 }, 1);
    cart.add({ id: 'gyoza', name: '餃子', price: 420 }, 2);
    expect(cart.subtotal()).toBe(1790);
    expect(cart.tax()).toBe(179);
    expect(cart.total()).toBe(1969);
  });

  it('rejects negative quantities', () => {
    expect(() => cart.add({ id: 'x', name: 'x', price: 1 }, -1)).toThrow(RangeError);
  });

  it('removes an item completely when qty reaches zero', () => {
    cart.add({ id: 'tea', name: 'お茶', price: 150 }, 1);
    cart.remove('tea', 1);
    expect(cart.items).toEqual([]);
  });
});

describe('formatPrice', () => {
  it.each([
    [0, 'JPY', '￥0'],
    [1969, 'JPY', '￥1,969'],
    [1234.5, 'EUR', '€1,234.50'],
    [-99.99, 'USD', '-$99.99'],
  ])('formatPrice(%p, %s) === %s', (amount, currency, expected) => {
    expect(formatPrice(amount, currency)).toBe(expected);
  });
});
