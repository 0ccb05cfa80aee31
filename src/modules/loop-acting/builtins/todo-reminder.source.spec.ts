import type { TodoItem } from '../sessions/session.types';
import { TODO_REMINDER_MAX_ITEMS, todoReminders } from './todo-reminder.source';

const item = (n: number, status: TodoItem['status']): TodoItem => ({ id: String(n), content: `step ${n}`, status });

describe('todoReminders', () => {
  it('names nothing for an empty list or one whose items are all completed', () => {
    expect(todoReminders({ todoList: [] })).toEqual([]);
    expect(todoReminders({ todoList: [item(1, 'completed'), item(2, 'completed')] })).toEqual([]);
  });

  it('lists the open items in their order with their status, and counts the completed ones', () => {
    const todoList = [item(1, 'completed'), item(2, 'in_progress'), item(3, 'pending')];
    expect(todoReminders({ todoList })).toEqual([
      'Your todo list (keep it current with UPDATE_TODO_LIST): 2 open, 1 completed.\n' +
        '- [in_progress] step 2\n- [pending] step 3',
    ]);
  });

  it('lists at most TODO_REMINDER_MAX_ITEMS open items and says how many more there are', () => {
    const todoList = Array.from({ length: TODO_REMINDER_MAX_ITEMS + 5 }, (_, i) => item(i + 1, 'pending'));
    const [reminder] = todoReminders({ todoList });
    expect(reminder.split('\n').filter((line) => line.startsWith('- ['))).toHaveLength(TODO_REMINDER_MAX_ITEMS);
    expect(reminder).toContain(`- [pending] step ${TODO_REMINDER_MAX_ITEMS}\n(5 more open items not shown)`);
  });
});
